"""Of the engine's own catalog, a query reads only what describes the benchmark (tests/fixtures/catalog_corpus.yaml)."""

import re
import sqlite3
from pathlib import Path

import pytest
import yaml

from biarena.db import SqlError, SqlRejected, check_read_only, open_database
from biarena.db.server_database import READ_ONLY_ROLE_HINT
from biarena.db.sqlite_database import SqliteDatabase
from tests.postgres_server import read_only_role_recipe

CORPUS = yaml.safe_load((Path(__file__).parent / "fixtures" / "catalog_corpus.yaml").read_text(encoding="utf-8"))
CASES = [
    pytest.param(dialect, verdict == "allowed", sql, id=f"{dialect}-{verdict}-{index}")
    for dialect, verdicts in CORPUS.items()
    for verdict, statements in verdicts.items()
    for index, sql in enumerate(statements)
]

SCHEMA = [
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL)",
    "CREATE TABLE settings (k TEXT PRIMARY KEY, v TEXT)",
    "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, order_id INTEGER REFERENCES orders (id))",
    "INSERT INTO orders VALUES (1, 2.5)",
    "INSERT INTO settings VALUES ('currency', 'EUR')",
    "INSERT INTO users VALUES (1, 'ada', 1)",
]


def _cases(engine: str) -> list:
    return [case for case in CASES if case.values[0] == engine]


@pytest.mark.parametrize(("dialect", "allowed", "sql"), CASES)
def test_the_check_allows_or_refuses_each_statement(dialect: str, allowed: bool, sql: str) -> None:
    if allowed:
        assert check_read_only(sql, dialect) is not None
        return
    with pytest.raises(SqlRejected) as caught:
        check_read_only(sql, dialect)
    reason = str(caught.value)
    assert "\n" not in reason and "not parseable" not in reason, reason


@pytest.fixture(scope="module")
def little_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("catalog") / "little.sqlite"
    conn = sqlite3.connect(path)
    for statement in SCHEMA:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def little_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path_factory.mktemp("catalog") / "little.duckdb"
    conn = duckdb.connect(str(path))
    for statement in SCHEMA:
        conn.execute(statement)
    conn.close()
    return path


@pytest.mark.parametrize(("dialect", "allowed", "sql"), _cases("sqlite"))
def test_sqlite_runs_what_the_check_allows_and_its_authorizer_refuses_the_rest(
    little_sqlite: Path, dialect: str, allowed: bool, sql: str
) -> None:
    db = SqliteDatabase(little_sqlite)
    if allowed:
        assert db.execute(sql).columns
    else:
        with pytest.raises(SqlRejected):
            db.execute(sql)
        # SQLite runs a plain SELECT unparsed: the engine alone returns none of it (the refusal is explained after)
        with pytest.raises((SqlRejected, SqlError)):
            db._run(sql, 5, 10)
    db.close()


def test_sqlite_statement_table_shows_no_other_query(little_sqlite: Path) -> None:
    """sqlite_stmt would list the statements prepared on the shared connection (a gold query, say)."""
    db = SqliteDatabase(little_sqlite)
    db.execute("SELECT 'the gold query' AS secret FROM orders")
    with pytest.raises(SqlRejected, match="sqlite_stmt") as caught:
        db.execute("SELECT sql FROM sqlite_stmt")
    assert "the gold query" not in str(caught.value)
    db.close()


@pytest.mark.parametrize(("dialect", "allowed", "sql"), _cases("duckdb"))
def test_duckdb_runs_what_the_check_allows_and_refuses_the_rest(
    little_duckdb: Path, dialect: str, allowed: bool, sql: str
) -> None:
    db = open_database(little_duckdb)
    if allowed:
        assert db.execute(sql).columns
    else:
        with pytest.raises(SqlRejected) as caught:
            db.execute(sql)
        assert str(little_duckdb) not in str(caught.value)
    db.close()


@pytest.mark.parametrize("fixture", ["little_sqlite", "little_duckdb"])
def test_biarena_still_reads_the_schema_itself(fixture: str, request: pytest.FixtureRequest) -> None:
    db = open_database(request.getfixturevalue(fixture))
    assert db.tables() == ["orders", "settings", "users"]
    assert "settings" in db.table_ddl("settings").lower()
    assert db.foreign_keys("users") == [("order_id", "orders", "id")]
    db.close()


def test_the_refusal_hint_is_the_readme_recipe() -> None:
    """The message that refuses a superuser gives the same statements as the recipe in docs/sandbox.md."""
    hint = READ_ONLY_ROLE_HINT.split("(", 1)[1].rsplit(")", 1)[0].split(": ", 1)[1]
    statements = [" ".join(s.split()) for s in hint.split(";")]
    as_in_readme = [re.sub(r"\bdb\b", "bench", s).replace("'...'", "'choose-one'") for s in statements]
    assert as_in_readme == read_only_role_recipe()
