"""The run file's format: its numbered migrations, and the tables and columns they make."""

import functools
import sqlite3
from pathlib import Path

from biarena.db.sql_text import compose
from biarena.sqlite_migrations import migrate

RUN_MAGIC = "biarena-run"
"""The value of a run file's `magic` row in its meta table."""

# The results table's columns before `try`: written once, made by migration 3 and again (with `try`) by 5.
_RESULTS_COLUMNS = """        question_id TEXT NOT NULL REFERENCES questions(question_id),
        scorer TEXT NOT NULL,
        scorer_version TEXT NOT NULL,
        rubric_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        applies INTEGER NOT NULL,
        failed TEXT,
        scores TEXT NOT NULL,
        trace TEXT NOT NULL,
        created_at TEXT NOT NULL,
"""

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
"""
    + _RESULTS_COLUMNS
    + """        PRIMARY KEY (question_id, scorer)
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
"""
    + _RESULTS_COLUMNS
    + """        try INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (question_id, try, scorer)
    );
    INSERT INTO results_by_try
        SELECT question_id, scorer, scorer_version, rubric_hash, model, applies, failed, scores, trace, created_at, 0
        FROM results;
    DROP TABLE results;
    ALTER TABLE results_by_try RENAME TO results;
    """,
]


RESULT_COLUMNS = (
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
"""The results table's columns, in order, but for `try`."""


def migrate_run(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the run file open on `conn` to the newest run format."""
    migrate(conn, path, MIGRATIONS, RUN_MAGIC, "run")


@functools.cache
def run_tables() -> dict[str, list[str]]:
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
