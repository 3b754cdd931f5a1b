"""RunStore: one SQLite file (WAL) per run holding its spec, questions, answers and scores."""

import copy
import json
import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from pydantic import TypeAdapter

from biarena.db.sql_text import compose, placeholders
from biarena.errors import FormatError, NotFoundError
from biarena.records import Answer, Question, RunSpec, Score, ScoreRecord, TraceEntry
from biarena.runner.damaged_run import check_tables, damage_of, fetch_rows, integer, parsed, row_name, text
from biarena.runner.run_file import RunInUse, create_run_file, lock_run_file, recognize_run_file
from biarena.runner.run_format import MIGRATIONS, RESULT_COLUMNS, RUN_MAGIC, migrate_run, run_tables
from biarena.runner.storable_answer import MAX_ANSWER_BYTES, storable_answer, unstorable_answer

__all__ = ["MAX_ANSWER_BYTES", "MIGRATIONS", "RunInUse", "RunStore", "recognize_run_file", "scores_by_question"]

_SCORES = TypeAdapter(list[Score])
_TRACE = TypeAdapter(list[TraceEntry])
_INSERT_ANSWER = {
    True: "INSERT OR REPLACE INTO answers (question_id, status, body, created_at, try) VALUES (?, ?, ?, ?, ?)",
    False: "INSERT OR IGNORE INTO answers (question_id, status, body, created_at, try) VALUES (?, ?, ?, ?, ?)",
}
"""An answer's row written over the one of its question and try (True), or only where there is none (False)."""


class RunStore:
    """A run file. Every answer and every answer's scores are written in their own transaction.

    A new run file appears only once it holds the run format (it is made beside its target and linked into
    place), an existing file is read without being changed until it is recognized as a run, and a store
    opened with `lock` holds an exclusive lock on the file so a second writer is refused at once.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = False,
        lock: bool | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.path = Path(path)
        self.max_answer_bytes = max_answer_bytes
        self._lock = threading.RLock()
        self._lock_fd: int | None = None
        self._conn: sqlite3.Connection | None = None
        self.try_number = 0
        """The try whose answers and results this store reads and writes (see `at_try`)."""
        self._view = False
        if not self.path.exists():
            if not create:
                raise NotFoundError(f"run not found: {self.path}")
            create_run_file(self.path)
        recognize_run_file(self.path)
        if create if lock is None else lock:
            self._lock_fd = lock_run_file(self.path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 10000")
            migrate_run(self._conn, self.path)
            magic = self._conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone()
            if not magic or magic[0] != RUN_MAGIC:  # the file said run; its write-ahead log says otherwise
                raise FormatError(f"{self.path}: not a biarena run file")
            check_tables(self._conn, self.path, run_tables())
        except sqlite3.DatabaseError as error:
            self.close()
            raise FormatError(f"{self.path}: cannot open the run file ({' '.join(str(error).split())})") from None
        except BaseException:
            self.close()
            raise

    def at_try(self, number: int) -> "RunStore":
        """The same open run file seen as its try `number` (0 is the first): answers and results are read and written
        there, so a run or a scoring pass over one try is the same code as over a run of one try."""
        view = copy.copy(self)
        view.try_number = number
        view._view = True
        return view

    def tries(self) -> list[int]:
        """The try numbers that hold at least one answer, in order."""
        rows = self._rows("answers", "SELECT DISTINCT try FROM answers ORDER BY try")
        return [integer(self.path, "answers", row_name("answers", [str(r[0])]), "try", r[0]) for r in rows]

    def repeats(self) -> int:
        """How many tries of each question the run asks for (1 for a run recorded before repeats existed)."""
        rows = self._rows("meta", "SELECT value FROM meta WHERE key = 'repeats'")
        return max(1, int(rows[0][0])) if rows and str(rows[0][0]).isdigit() else 1

    def set_repeats(self, repeats: int) -> None:
        """Record how many tries of each question the run asks for."""
        with self._lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('repeats', ?)", (str(repeats),))

    def answers_of_tries(self) -> list[tuple[int, Answer]]:
        """Every recorded answer of every try as (try, answer), in question order, then by try."""
        rows = self._rows(
            "answers",
            "SELECT a.question_id, a.try, a.body FROM answers a JOIN questions q USING (question_id) "
            "ORDER BY q.position, a.try",
        )
        return [
            (
                try_number,
                parsed(self.path, "answers", row_name("answers", [qid]), "body", Answer.model_validate_json, body),
            )
            for qid, try_number, body in rows
        ]

    def scores_of_tries(self) -> dict[int, list[Score]]:
        """Every stored score of every try: try -> its scores, by question then name."""
        return {number: self.at_try(number).scores() for number in self.tries()}

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection."""
        if self._conn is None:
            raise FormatError(f"{self.path}: the run file is closed")
        return self._conn

    # --- spec and questions -------------------------------------------------------------

    def spec(self) -> RunSpec | None:
        """Return the run's spec, or None for a run not started yet."""
        rows = self._rows("meta", "SELECT value FROM meta WHERE key = 'spec'")
        if not rows:
            return None
        return parsed(self.path, "meta", row_name("meta", ["spec"]), "value", RunSpec.model_validate_json, rows[0][0])

    def start(self, spec: RunSpec, questions: list[Question]) -> None:
        """Record the spec and the questions of a new run, in one transaction."""
        self.update(spec, questions)

    def update(self, spec: RunSpec, new_questions: list[Question]) -> None:
        """Record a (grown or relabelled) spec with its new questions; positions follow `spec.question_ids`."""
        rows = [(q.id, _question_json(q)) for q in new_questions]
        position = {qid: i for i, qid in enumerate(spec.question_ids)}
        with self._lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('spec', ?)", (spec.model_dump_json(),))
            self.conn.executemany(
                "INSERT OR IGNORE INTO questions VALUES (?, ?, ?)",
                [(qid, position.get(qid, len(position)), body) for qid, body in rows],
            )
            self.conn.executemany(
                "UPDATE questions SET position = ? WHERE question_id = ?", [(i, q) for q, i in position.items()]
            )

    def reset(self) -> None:
        """Delete the run's spec, questions, answers and scores (the file stays a run file)."""
        with self._lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            for table in ("results", "statement_results", "answers", "questions"):
                self.conn.execute(compose("DELETE FROM {table}", table=table))
            self.conn.execute("DELETE FROM meta WHERE key IN ('spec', 'repeats')")

    def questions(self) -> list[Question]:
        """The run's questions, in order."""
        found = []
        for qid, position, body in self._rows("questions", "SELECT question_id, position, body FROM questions"):
            row = row_name("questions", [qid])
            integer(self.path, "questions", row, "position", position)
            found.append((position, parsed(self.path, "questions", row, "body", Question.model_validate_json, body)))
        return [question for _, question in sorted(found, key=lambda pair: pair[0])]

    # --- answers ------------------------------------------------------------------------

    def answered_ids(self) -> set[str]:
        """Ids of questions with a recorded answer."""
        with self._lock:
            return {
                r[0] for r in self._rows("answers", "SELECT question_id FROM answers WHERE try = ?", (self.try_number,))
            }

    def add_answer(self, answer: Answer, *, replace: bool = False) -> bool:
        """Record an answer in its own transaction; False when the question already had one (and not `replace`).

        Whatever the answer holds, something is stored: text is sanitized, an oversized answer loses its
        previews, and an answer that still cannot be stored is recorded as an error saying why.
        """
        stored, body = storable_answer(answer, self.max_answer_bytes)
        try:
            return self._insert(stored, body, replace)
        except (sqlite3.DataError, sqlite3.InterfaceError, OverflowError, MemoryError) as error:
            failed = unstorable_answer(answer, f"{type(error).__name__}: {error}")
            return self._insert(failed, failed.model_dump_json(), replace)

    def _insert(self, answer: Answer, body: str, replace: bool) -> bool:
        try:
            with self._lock, self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                if replace:
                    self.conn.execute(
                        "DELETE FROM results WHERE question_id = ? AND try = ?", (answer.question_id, self.try_number)
                    )
                cursor = self.conn.execute(
                    _INSERT_ANSWER[replace],
                    (answer.question_id, answer.status, body, answer.created_at.isoformat(), self.try_number),
                )
                return cursor.rowcount == 1
        except sqlite3.OperationalError as error:
            if "too big" in str(error):
                raise sqlite3.DataError(str(error)) from None
            raise FormatError(f"cannot write to {self.path}: {error}") from None

    def answers(self) -> list[Answer]:
        """Every recorded answer, in question order."""
        rows = self._rows(
            "answers",
            "SELECT a.question_id, a.body FROM answers a JOIN questions q USING (question_id) WHERE a.try = ? "
            "ORDER BY q.position",
            (self.try_number,),
        )
        return [
            parsed(self.path, "answers", row_name("answers", [qid]), "body", Answer.model_validate_json, body)
            for qid, body in rows
        ]

    def count_answers(self) -> int:
        """How many answers are recorded."""
        return self._rows("answers", "SELECT count(*) FROM answers WHERE try = ?", (self.try_number,))[0][0]

    # --- scores -------------------------------------------------------------------------

    def put_results(self, records: Iterable[ScoreRecord]) -> None:
        """Record scorers' results together, each replacing what its scorer stored of that answer before."""
        rows = [
            (
                r.question_id,
                r.scorer,
                r.scorer_version,
                r.rubric_hash or "",
                r.model or "",
                int(r.applies),
                r.failed,
                _json_list(r.scores),
                _json_list(r.trace),
                r.created_at.isoformat(),
                self.try_number,
            )
            for r in records
        ]
        columns = [*RESULT_COLUMNS, "try"]
        insert = compose(
            "INSERT OR REPLACE INTO results ({columns}) VALUES ({marks})",
            columns=columns,
            marks=placeholders(len(columns)),
        )
        with self._lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany(insert, rows)

    def put_scores(self, scores: Iterable[Score]) -> None:
        """Record scores made outside a scoring pass (imported ones): one record per question and scorer, each
        replacing what that scorer stored of that answer before."""
        grouped: dict[tuple[str, str], list[Score]] = {}
        for score in scores:
            grouped.setdefault((score.question_id, score.scorer), []).append(score)
        self.put_results(
            ScoreRecord(question_id=qid, scorer=scorer, scorer_version=group[0].scorer_version, scores=group)
            for (qid, scorer), group in grouped.items()
        )

    def result_keys(self) -> dict[tuple[str, str, str, str, str], bool]:
        """Each stored result's key (question id, scorer, version, rubric hash, model) -> whether the scorer applied."""
        with self._lock:
            rows = self._rows(
                "results",
                "SELECT question_id, scorer, scorer_version, rubric_hash, model, applies FROM results WHERE try = ?",
                (self.try_number,),
            )
        keys = {}
        for row in rows:
            where = row_name("results", row)
            for column, value in zip(("scorer_version", "rubric_hash", "model"), row[2:5], strict=True):
                text(self.path, "results", where, column, value)
            keys[tuple(row[:5])] = bool(integer(self.path, "results", where, "applies", row[5], (0, 1)))
        return keys  # type: ignore[return-value]

    def kept_result(self, database: str, role: str, sql: str) -> str | None:
        """The kept result (its JSON) of `sql` run as `role` (gold or answer) on `database`, if any."""
        with self._lock:
            rows = self._rows(
                "statement_results",
                "SELECT body FROM statement_results WHERE database = ? AND role = ? AND sql = ?",
                (database, role, sql),
            )
        if not rows:
            return None
        return text(self.path, "statement_results", row_name("statement_results", [database, role]), "body", rows[0][0])

    def kept_results(self) -> list[tuple[str, str, str, str]]:
        """Every kept statement result as (database, role, sql, body JSON), in that order."""
        with self._lock:
            rows = self._rows(
                "statement_results",
                "SELECT rowid, database, role, sql, body FROM statement_results ORDER BY database, role, sql",
            )
        return [self._kept_row(row) for row in rows]

    def _kept_row(self, row: tuple) -> tuple[str, str, str, str]:
        where = row_name("statement_results", row[1:3], row[0])
        values = [
            text(self.path, "statement_results", where, column, value)
            for column, value in zip(("database", "role", "sql", "body"), row[1:], strict=True)
        ]
        return values[0], values[1], values[2], values[3]

    def keep_result(self, database: str, role: str, sql: str, body: str) -> None:
        """Keep a statement's result (its JSON), replacing what was kept of it before."""
        with self._lock, self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute(
                "INSERT OR REPLACE INTO statement_results VALUES (?, ?, ?, ?)", (database, role, sql, body)
            )

    def scores(self) -> list[Score]:
        """Every stored score, by question then name."""
        found = []
        for qid, scorer, applies, body in self._rows(
            "results", "SELECT question_id, scorer, applies, scores FROM results WHERE try = ?", (self.try_number,)
        ):
            where = row_name("results", [qid, scorer])
            if integer(self.path, "results", where, "applies", applies, (0, 1)):
                found += parsed(self.path, "results", where, "scores", _SCORES.validate_json, body)
        return sorted(found, key=lambda s: (s.question_id, s.name))

    def not_applicable(self) -> set[tuple[str, str]]:
        """(question id, scorer) pairs the scorer does not score."""
        rows = self._rows(
            "results", "SELECT question_id, scorer, applies FROM results WHERE try = ?", (self.try_number,)
        )
        return {
            (qid, scorer)
            for qid, scorer, applies in rows
            if not integer(self.path, "results", row_name("results", [qid, scorer]), "applies", applies, (0, 1))
        }

    def results(self, question_id: str | None = None) -> list[ScoreRecord]:
        """Stored results with their traces (of one question, or all), by question then scorer."""
        query = compose("SELECT {columns} FROM results WHERE try = ?", columns=list(RESULT_COLUMNS))
        query += " AND question_id = ?" if question_id is not None else ""
        params = (self.try_number,) if question_id is None else (self.try_number, question_id)
        rows = self._rows("results", query + " ORDER BY question_id, scorer", params)
        return [self._result(row) for row in rows]

    def _result(self, row: tuple) -> ScoreRecord:
        qid, scorer, version, rubric, model, applies, failed, scores, trace, created = row
        where = row_name("results", [qid, scorer])
        values = dict(
            question_id=qid,
            scorer=scorer,
            scorer_version=version,
            rubric_hash=rubric or None,
            model=model or None,
            applies=bool(integer(self.path, "results", where, "applies", applies, (0, 1))),
            failed=failed,
            scores=parsed(self.path, "results", where, "scores", _SCORES.validate_json, scores),
            trace=parsed(self.path, "results", where, "trace", _TRACE.validate_json, trace),
            created_at=created,
        )
        return parsed(self.path, "results", where, "", lambda data: ScoreRecord(**data), values)

    def check(self) -> None:
        """Read every row as the commands do, so a damaged file is refused (DamagedRunFile) before anything is written
        into it."""
        self.spec()
        self.questions()
        self.answers_of_tries()
        for number in sorted({0, *self.tries()}):
            self.at_try(number).results()
            self.at_try(number).result_keys()
        with self._lock:
            try:
                for row in self.conn.execute("SELECT rowid, database, role, sql, body FROM statement_results"):
                    body = self._kept_row(row)[3]
                    where = row_name("statement_results", row[1:3], row[0])
                    parsed(self.path, "statement_results", where, "body", _json_object, body)
            except sqlite3.Error as error:
                raise damage_of(self.path, "statement_results", error) from None

    def _rows(self, table: str, sql: str, params: tuple = ()) -> list[tuple]:
        return fetch_rows(self.conn, self.path, table, sql, params)

    def close(self) -> None:
        """Close the file (and release its lock: only after SQLite let go of it, so its own locks stay intact); a try's
        view leaves the file open for the store it was made from."""
        if self._view:
            return
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _json_object(body: str) -> dict:
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError(f"a JSON object is expected, not {type(data).__name__}")
    return data


def scores_by_question(scores: list[Score]) -> dict[str, dict[str, float | None]]:
    """Map question id -> score name -> value."""
    table: dict[str, dict[str, float | None]] = {}
    for score in scores:
        table.setdefault(score.question_id, {})[score.name] = score.value
    return table


def _json_list(items: list[Score] | list[TraceEntry]) -> str:
    return "[" + ",".join(item.model_dump_json() for item in items) + "]"


def _question_json(question: Question) -> str:
    try:
        return question.model_dump_json()
    except ValueError as error:
        raise FormatError(f"question '{question.id!a}' cannot be stored: {error}") from None
