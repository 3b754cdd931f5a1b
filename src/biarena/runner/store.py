"""RunStore: one SQLite file (WAL) per run holding its spec, questions, answers and scores."""

import copy
import functools
import json
import os
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from pydantic import TypeAdapter, ValidationError

from biarena.db.sql_text import compose, placeholders
from biarena.errors import BiarenaError, FormatError, NotFoundError
from biarena.records import Answer, Question, RunSpec, Score, ScoreRecord, SystemSpec, TraceEntry
from biarena.records.sanitize import clean_value, describe_changes
from biarena.runner.damaged_run import (
    DamagedRunFile,
    check_tables,
    damage_of,
    fetch_rows,
    integer,
    parsed,
    row_name,
    text,
)
from biarena.sqlite_migrations import migrate

try:
    import fcntl
except ImportError:  # Windows: runs are not locked there
    fcntl = None  # type: ignore[assignment]

# Numbered migrations: index i takes the schema from version i to i + 1.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE questions (
        question_id TEXT PRIMARY KEY,
        position INTEGER NOT NULL,
        body TEXT NOT NULL
    );
    CREATE TABLE answers (
        question_id TEXT PRIMARY KEY REFERENCES questions(question_id),
        status TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE scores (
        question_id TEXT NOT NULL REFERENCES answers(question_id),
        name TEXT NOT NULL,
        scorer TEXT NOT NULL,
        scorer_version TEXT NOT NULL,
        value REAL,
        body TEXT NOT NULL,
        PRIMARY KEY (question_id, name)
    );
    """,
    """
    CREATE TABLE traces (
        question_id TEXT NOT NULL REFERENCES answers(question_id),
        judge TEXT NOT NULL,
        judge_version TEXT NOT NULL,
        rubric_hash TEXT NOT NULL,
        judge_model TEXT NOT NULL,
        failed TEXT,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (question_id, judge)
    );
    """,
    # 3: one table for everything a scorer stores of an answer (its scores, its model calls, or that it does not
    # apply), carried over from the scores and traces tables
    """
    CREATE TABLE results (
        question_id TEXT NOT NULL REFERENCES questions(question_id),
        scorer TEXT NOT NULL,
        scorer_version TEXT NOT NULL,
        rubric_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        applies INTEGER NOT NULL,
        failed TEXT,
        scores TEXT NOT NULL,
        trace TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (question_id, scorer)
    );
    INSERT INTO results
        SELECT s.question_id, s.scorer, max(s.scorer_version), coalesce(t.rubric_hash, ''),
               coalesce(t.judge_model, ''), 1,
               coalesce(t.failed, CASE WHEN max(json_extract(s.body, '$.sub_scores.error')) THEN
                   min(json_extract(s.body, '$.rationale')) END),
               json_group_array(json(s.body)), coalesce(t.body, '[]'),
               coalesce(t.created_at, max(json_extract(s.body, '$.created_at')))
        FROM (SELECT * FROM scores ORDER BY question_id, name) AS s
        LEFT JOIN traces AS t ON t.question_id = s.question_id AND t.judge = s.scorer
        GROUP BY s.question_id, s.scorer;
    INSERT INTO results
        SELECT t.question_id, t.judge, t.judge_version, t.rubric_hash, t.judge_model, 1, t.failed, '[]', t.body,
               t.created_at
        FROM traces AS t
        WHERE NOT EXISTS (SELECT 1 FROM scores AS s WHERE s.question_id = t.question_id AND s.scorer = t.judge);
    DROP TABLE traces;
    DROP TABLE scores;
    """,
    # 4: each statement's full result (up to the sandbox's limits) as scoring ran it, so that another result
    # contract scores the run again without running anything
    """
    CREATE TABLE IF NOT EXISTS statement_results (
        database TEXT NOT NULL,
        role TEXT NOT NULL,
        sql TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (database, role, sql)
    );
    """,
    # 5: a question asked more than once (`run --repeats K`): answers and results carry the try they belong to, and
    # what a run recorded before is its try 0
    """
    CREATE TABLE answers_by_try (
        question_id TEXT NOT NULL REFERENCES questions(question_id),
        status TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        try INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (question_id, try)
    );
    INSERT INTO answers_by_try SELECT question_id, status, body, created_at, 0 FROM answers;
    DROP TABLE answers;
    ALTER TABLE answers_by_try RENAME TO answers;
    CREATE TABLE results_by_try (
        question_id TEXT NOT NULL REFERENCES questions(question_id),
        scorer TEXT NOT NULL,
        scorer_version TEXT NOT NULL,
        rubric_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        applies INTEGER NOT NULL,
        failed TEXT,
        scores TEXT NOT NULL,
        trace TEXT NOT NULL,
        created_at TEXT NOT NULL,
        try INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (question_id, try, scorer)
    );
    INSERT INTO results_by_try
        SELECT question_id, scorer, scorer_version, rubric_hash, model, applies, failed, scores, trace, created_at, 0
        FROM results;
    DROP TABLE results;
    ALTER TABLE results_by_try RENAME TO results;
    """,
]

_MAGIC = "biarena-run"
_SQLITE_HEADER = b"SQLite format 3\x00"

_SCORES = TypeAdapter(list[Score])
_TRACE = TypeAdapter(list[TraceEntry])

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""An answer whose record is larger than this is stored without its result previews (or as an error)."""


class RunInUse(BiarenaError):
    """Another process is writing the run file."""


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
            _create_run_file(self.path)
        recognize_run_file(self.path)
        if create if lock is None else lock:
            self._lock_fd = _lock_file(self.path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 10000")
            _migrate(self._conn, self.path)
            magic = self._conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone()
            if not magic or magic[0] != _MAGIC:  # the file said run; its write-ahead log says otherwise
                raise FormatError(f"{self.path}: not a biarena run file")
            check_tables(self._conn, self.path, _tables())
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
        stored, body = self._storable(answer)
        try:
            return self._insert(stored, body, replace)
        except (sqlite3.DataError, sqlite3.InterfaceError, OverflowError, MemoryError) as error:
            failed = _unstorable(answer, f"{type(error).__name__}: {error}")
            return self._insert(failed, failed.model_dump_json(), replace)

    def _insert(self, answer: Answer, body: str, replace: bool) -> bool:
        try:
            with self._lock, self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                if replace:
                    self.conn.execute(
                        "DELETE FROM results WHERE question_id = ? AND try = ?", (answer.question_id, self.try_number)
                    )
                verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
                cursor = self.conn.execute(
                    f"{verb} INTO answers (question_id, status, body, created_at, try) VALUES (?, ?, ?, ?, ?)",
                    (answer.question_id, answer.status, body, answer.created_at.isoformat(), self.try_number),
                )
                return cursor.rowcount == 1
        except sqlite3.OperationalError as error:
            if "too big" in str(error):
                raise sqlite3.DataError(str(error)) from None
            raise FormatError(f"cannot write to {self.path}: {error}") from None

    def _storable(self, answer: Answer) -> tuple[Answer, str]:
        """The answer as it can be stored, and its JSON."""
        try:
            try:
                body = answer.model_dump_json()
            except ValueError:  # pydantic's serialization error is a ValueError
                answer = _sanitized(answer)
                body = answer.model_dump_json()
            if len(body) > self.max_answer_bytes:
                answer = _without_previews(answer, len(body), self.max_answer_bytes)
                body = answer.model_dump_json()
            if len(body) > self.max_answer_bytes:
                answer = _unstorable(answer, f"the answer is {len(body):,} characters, over the store's limit")
                body = answer.model_dump_json()
            return answer, body
        except (ValidationError, ValueError, RecursionError, MemoryError) as error:
            answer = _unstorable(answer, f"{type(error).__name__}: {str(error)[:300]}")
            return answer, answer.model_dump_json()

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
        columns = [*_RESULT_COLUMNS, "try"]
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
        query = compose("SELECT {columns} FROM results WHERE try = ?", columns=list(_RESULT_COLUMNS))
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


_RESULT_COLUMNS = (
    "question_id",
    "scorer",
    "scorer_version",
    "rubric_hash",
    "model",
    "applies",
    "failed",
    "scores",
    "trace",
    "created_at",
)


@functools.cache
def _tables() -> dict[str, list[str]]:
    """Each table of the newest run format with its columns, as the migrations make them."""
    conn = sqlite3.connect(":memory:")
    try:
        for statement in ";".join(MIGRATIONS).split(";"):
            if statement.strip():
                conn.execute(statement)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {name: [r[1] for r in conn.execute(compose("PRAGMA table_info({name})", name=name))] for name in names}
    finally:
        conn.close()


def scores_by_question(scores: list[Score]) -> dict[str, dict[str, float | None]]:
    """Map question id -> score name -> value."""
    table: dict[str, dict[str, float | None]] = {}
    for score in scores:
        table.setdefault(score.question_id, {})[score.name] = score.value
    return table


def _json_list(items: list[Score] | list[TraceEntry]) -> str:
    return "[" + ",".join(item.model_dump_json() for item in items) + "]"


def recognize_run_file(path: Path) -> None:
    """Raise FormatError unless `path` is a biarena run file; reads it without changing a byte."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    if stat.S_ISDIR(mode):
        raise FormatError(f"{path}: is a directory, not a run file")
    if not stat.S_ISREG(mode):
        raise FormatError(f"{path}: not a biarena run file (not a regular file)")
    if os.path.getsize(path) == 0:
        raise FormatError(f"{path}: not a biarena run file (an empty file)")
    # immutable: no locks, no journal, no -wal or -shm beside a file that may belong to someone else
    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    version, magic = _read_magic(uri)
    wal = Path(f"{path}-wal")
    if (not magic or magic[0] != _MAGIC) and wal.is_file() and wal.stat().st_size > 0:
        # a database already in WAL use (a run killed before its first checkpoint): read it with its log
        version, magic = _read_magic(f"file:{quote(str(path.resolve()))}?mode=ro")
    if not magic and _run_shaped(uri):
        raise DamagedRunFile(path, "meta", "the table is missing or has no 'magic' row; it was left as it is")
    if not magic or magic[0] != _MAGIC:
        kind = "an SQLite database of something else" if version or _is_sqlite(uri) else "not even an SQLite file"
        raise FormatError(f"{path}: not a biarena run file ({kind}); it was left as it is")
    if version > len(MIGRATIONS):
        raise FormatError(f"{path}: made by a newer biarena (run format {version})")


def _read_magic(uri: str) -> tuple[int, tuple | None]:
    """The user version and the magic row of the database at `uri` ((0, None) when it has none)."""
    version, magic = 0, None
    for attempt in range(3):
        try:
            conn = sqlite3.connect(uri, uri=True)
        except sqlite3.Error:
            return 0, None
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            magic = conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone() if version else None
            break
        except sqlite3.DatabaseError as error:
            # not a database at all, or a page caught mid-write by a checkpoint of a live run: look again
            if "malformed" not in str(error) or attempt == 2:
                version, magic = 0, None
                break
            time.sleep(0.05)
        finally:
            conn.close()
    return version, magic


def _run_shaped(uri: str) -> bool:
    """Whether the database has the tables only a run file has (its meta table may be gone)."""
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return {"questions", "answers", "results"} <= names


def _is_sqlite(uri: str) -> bool:
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return True
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def _create_run_file(path: Path) -> None:
    """Make an empty run file at `path`: built beside it, then linked into place only if `path` is still free."""
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise FormatError(f"cannot create run file {path}: {blocking} is a file, not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FormatError(f"cannot create run file {path}: {error.strerror or error}") from None
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            _migrate(conn, temporary)
        finally:
            conn.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: it is resumed (or refused) like any existing file
        except OSError:
            if not path.exists():  # a file system without hard links
                os.replace(temporary, path)
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise FormatError(f"cannot create run file {path}: {reason}") from None
    finally:
        temporary.unlink(missing_ok=True)


def _lock_file(path: Path) -> int | None:
    """Hold an exclusive lock on the run file; RunInUse when another process holds it."""
    if fcntl is None:
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunInUse(
            f"{path} is being written by another biarena process; wait for it to finish or choose another -o"
        ) from None
    except OSError:  # a file system without locks: go on unlocked
        os.close(fd)
        return None
    return fd


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    migrate(conn, path, MIGRATIONS, _MAGIC, "run")


def _question_json(question: Question) -> str:
    try:
        return question.model_dump_json()
    except ValueError as error:
        raise FormatError(f"question '{question.id!a}' cannot be stored: {error}") from None


def _sanitized(answer: Answer) -> Answer:
    data, changes = clean_value(answer.model_dump(mode="python"))
    cleaned = Answer.model_validate(data)
    if changes:
        cleaned.sanitized.append(describe_changes(changes))
    return cleaned


def _without_previews(answer: Answer, size: int, limit: int) -> Answer:
    steps = [step.model_copy(update={"preview": []}) for step in answer.steps]
    note = f"result previews dropped: the answer was {size:,} characters, over the store's {limit:,}"
    return answer.model_copy(update={"steps": steps, "sanitized": [*answer.sanitized, note]})


def _unstorable(answer: Answer, reason: str) -> Answer:
    """An error answer in place of one that cannot be stored, keeping its question, system and usage."""
    system, _ = clean_value(answer.system.model_dump(mode="python"))
    usage = answer.usage
    return Answer(
        question_id=answer.question_id,
        system=SystemSpec.model_validate(system),
        usage=usage,
        status="error",
        error=f"the answer could not be stored: {clean_value(reason)[0]}",
        sanitized=[f"answer replaced by an error: {clean_value(reason)[0][:200]}"],
    )
