"""RunStore: one SQLite file (WAL) per run holding its spec, questions, answers and scores."""

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from biarena.errors import FormatError, NotFoundError
from biarena.records import Answer, Question, RunSpec, Score

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
]

_MAGIC = "biarena-run"


class RunStore:
    """A run file. Every answer and every answer's scores are written in their own transaction."""

    def __init__(self, path: str | Path, *, create: bool = False) -> None:
        self.path = Path(path)
        exists = self.path.exists()
        if not exists and not create:
            raise NotFoundError(f"run not found: {self.path}")
        if exists and self.path.is_dir():
            raise FormatError(f"{self.path}: is a directory, not a run file")
        if not exists:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._migrate(fresh=not exists)
        except sqlite3.DatabaseError as error:
            raise FormatError(f"{self.path}: not a biarena run file ({error})") from None

    def _migrate(self, fresh: bool) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if not fresh and version == 0:
            tables = self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise FormatError(f"{self.path}: not a biarena run file")
        if version > len(MIGRATIONS):
            raise FormatError(f"{self.path}: made by a newer biarena (run format {version})")
        for index in range(version, len(MIGRATIONS)):
            with self._conn:
                self._conn.execute("BEGIN")
                for statement in MIGRATIONS[index].split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                if index == 0:
                    self._conn.execute("INSERT INTO meta VALUES ('magic', ?)", (_MAGIC,))
                self._conn.execute(f"PRAGMA user_version = {index + 1}")
        magic = self._conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone()
        if not magic or magic[0] != _MAGIC:
            raise FormatError(f"{self.path}: not a biarena run file")

    # --- spec and questions -------------------------------------------------------------

    def spec(self) -> RunSpec | None:
        """Return the run's spec, or None for a run not started yet."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()
        if not row:
            return None
        try:
            return RunSpec.model_validate_json(row[0])
        except ValidationError as error:
            raise FormatError(f"{self.path}: damaged run spec ({error.errors()[0]['msg']})") from None

    def start(self, spec: RunSpec, questions: list[Question]) -> None:
        """Record the spec and the questions of a new run, in one transaction."""
        with self._conn:
            self._conn.execute("BEGIN")
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('spec', ?)", (spec.model_dump_json(),))
            self._conn.executemany(
                "INSERT OR IGNORE INTO questions VALUES (?, ?, ?)",
                [(q.id, i, q.model_dump_json()) for i, q in enumerate(questions)],
            )

    def questions(self) -> list[Question]:
        """The run's questions, in order."""
        rows = self._conn.execute("SELECT body FROM questions ORDER BY position").fetchall()
        return [Question.model_validate_json(r[0]) for r in rows]

    # --- answers ------------------------------------------------------------------------

    def answered_ids(self) -> set[str]:
        """Ids of questions with a recorded answer."""
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT question_id FROM answers")}

    def add_answer(self, answer: Answer) -> bool:
        """Record an answer in its own transaction; False when the question already had one."""
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            cursor = self._conn.execute(
                "INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?)",
                (
                    answer.question_id,
                    answer.status,
                    answer.model_dump_json(),
                    answer.created_at.isoformat(),
                ),
            )
            return cursor.rowcount == 1

    def answers(self) -> list[Answer]:
        """Every recorded answer, in question order."""
        rows = self._conn.execute(
            "SELECT a.body FROM answers a JOIN questions q USING (question_id) ORDER BY q.position"
        ).fetchall()
        return [Answer.model_validate_json(r[0]) for r in rows]

    def count_answers(self) -> int:
        """How many answers are recorded."""
        return self._conn.execute("SELECT count(*) FROM answers").fetchone()[0]

    # --- scores -------------------------------------------------------------------------

    def put_scores(self, scores: Iterable[Score]) -> None:
        """Record one answer's scores together (replacing older values of the same names)."""
        rows = [(s.question_id, s.name, s.scorer, s.scorer_version, s.value, s.model_dump_json()) for s in scores]
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?, ?)", rows)

    def scored(self) -> set[tuple[str, str, str]]:
        """(question id, scorer, scorer version) triples already recorded."""
        return {tuple(r) for r in self._conn.execute("SELECT DISTINCT question_id, scorer, scorer_version FROM scores")}  # type: ignore[misc]

    def scores(self) -> list[Score]:
        """Every recorded score."""
        rows = self._conn.execute("SELECT body FROM scores ORDER BY question_id, name").fetchall()
        return [Score.model_validate_json(r[0]) for r in rows]

    def close(self) -> None:
        """Close the file."""
        self._conn.close()

    def __enter__(self) -> "RunStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def scores_by_question(scores: list[Score]) -> dict[str, dict[str, float | None]]:
    """Map question id -> score name -> value."""
    table: dict[str, dict[str, float | None]] = {}
    for score in scores:
        table.setdefault(score.question_id, {})[score.name] = score.value
    return table
