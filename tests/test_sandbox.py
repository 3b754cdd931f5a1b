"""Model-written SQL can never change a database: every hostile statement is rejected, bytes unchanged."""

import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biarena.db import SqlError, SqlRejected, SqlTimeout, check_read_only, open_database
from biarena.db.sqlite_database import SqliteDatabase
from tests.conftest import sha256

HOSTILE = [
    # plain writes
    "DELETE FROM sales",
    "DELETE FROM sales WHERE sale_id = 1",
    "delete from sales",
    "UPDATE sales SET amount = 0",
    "update sales set qty = qty + 1 where 1=1",
    "INSERT INTO city VALUES (9, 'Rome', 'IT', 1)",
    "INSERT INTO city SELECT * FROM city",
    "INSERT OR REPLACE INTO city VALUES (1, 'x', 'y', 2)",
    "REPLACE INTO city VALUES (1, 'x', 'y', 2)",
    "UPSERT INTO city VALUES (1)",
    "INSERT INTO city DEFAULT VALUES",
    "DROP TABLE sales",
    "DROP TABLE IF EXISTS sales",
    "DROP VIEW IF EXISTS v",
    "DROP INDEX IF EXISTS i",
    "DROP TRIGGER IF EXISTS t",
    "CREATE TABLE x (a INT)",
    "CREATE TABLE x AS SELECT * FROM sales",
    "CREATE TEMP TABLE x (a INT)",
    "CREATE TEMPORARY TABLE x AS SELECT 1",
    "CREATE TEMP VIEW v AS SELECT 1",
    "CREATE VIEW v AS SELECT * FROM sales",
    "CREATE INDEX i ON sales(amount)",
    "CREATE UNIQUE INDEX i ON city(name)",
    "CREATE TRIGGER t AFTER INSERT ON sales BEGIN DELETE FROM city; END",
    "CREATE VIRTUAL TABLE f USING fts5(a)",
    "ALTER TABLE sales ADD COLUMN z INT",
    "ALTER TABLE sales RENAME TO s2",
    "ALTER TABLE city RENAME COLUMN name TO n",
    "ALTER TABLE city DROP COLUMN population",
    # CTEs that write
    "WITH x AS (SELECT 1) DELETE FROM sales",
    "WITH x AS (SELECT 1) UPDATE sales SET amount = 0",
    "WITH x AS (SELECT 1) INSERT INTO city SELECT * FROM city",
    "WITH RECURSIVE x(n) AS (SELECT 1) DELETE FROM sales WHERE sale_id IN (SELECT n FROM x)",
    "with x as (select 1) replace into city values (1,'a','b',1)",
    # attach / detach
    "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "ATTACH '/tmp/evil.db' AS evil",
    "attach database ':memory:' as m",
    "ATTACH DATABASE 'file:/tmp/evil.db?mode=rwc' AS evil",
    "DETACH DATABASE main",
    "DETACH evil",
    # pragmas (writing ones and any at all)
    "PRAGMA writable_schema = ON",
    "PRAGMA writable_schema=1",
    "PRAGMA journal_mode = DELETE",
    "PRAGMA journal_mode = WAL",
    "PRAGMA user_version = 7",
    "PRAGMA application_id = 1",
    "PRAGMA query_only = OFF",
    "PRAGMA query_only = 0",
    "PRAGMA foreign_keys = OFF",
    "PRAGMA synchronous = OFF",
    "PRAGMA auto_vacuum = FULL",
    "PRAGMA incremental_vacuum",
    "PRAGMA wal_checkpoint(TRUNCATE)",
    "PRAGMA optimize",
    "PRAGMA schema_version = 1",
    "PRAGMA main.user_version = 3",
    "PRAGMA locking_mode = EXCLUSIVE",
    "PRAGMA cache_size = 1",
    "pragma table_info(sales)",
    # maintenance
    "VACUUM",
    "VACUUM INTO '/tmp/copy.db'",
    "vacuum main into '/tmp/copy2.db'",
    "REINDEX",
    "REINDEX sales",
    "ANALYZE",
    "ANALYZE sales",
    # transactions
    "BEGIN",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "END TRANSACTION",
    "ROLLBACK",
    "SAVEPOINT s",
    "RELEASE s",
    # extensions and file functions
    "SELECT load_extension('/tmp/evil.so')",
    "SELECT load_extension('/tmp/evil.so', 'init')",
    "select LOAD_EXTENSION('x')",
    "SELECT * FROM sales WHERE load_extension('x') IS NULL",
    "SELECT (SELECT load_extension('x'))",
    "SELECT readfile('/etc/passwd')",
    "SELECT writefile('/tmp/x', 'data')",
    "SELECT fts3_tokenizer('simple')",
    "SELECT edit('x')",
    # stacked statements
    "SELECT 1; DELETE FROM sales",
    "SELECT 1; DROP TABLE sales;",
    "SELECT * FROM sales; UPDATE sales SET qty = 0",
    "SELECT 1;DELETE FROM sales",
    "SELECT 1; SELECT 2",
    "SELECT 1;\nATTACH DATABASE '/tmp/e.db' AS e",
    "DELETE FROM sales; SELECT 1",
    "SELECT 1; PRAGMA writable_schema = 1",
    "SELECT 1; VACUUM",
    "SELECT 1; BEGIN; DELETE FROM sales; COMMIT",
    # comment tricks
    "/* SELECT */ DELETE FROM sales",
    "-- SELECT 1\nDELETE FROM sales",
    "SELECT 1 -- harmless\n; DELETE FROM sales",
    "SELECT 1 /* ; */; DROP TABLE sales",
    "/*!DELETE FROM sales*/ DELETE FROM sales",
    "SELECT 1 /* comment */; /* another */ UPDATE sales SET qty = 1",
    "-- only a comment",
    "/* only a comment */",
    "   ",
    "",
    ";",
    ";;",
    "DELETE/**/FROM/**/sales",
    "DeLeTe FrOm sales",
    "\tDELETE\nFROM\tsales",
    # other engines' writes and escapes
    "SELECT * INTO new_table FROM sales",
    "SELECT * FROM sales FOR UPDATE",
    "COPY sales TO '/tmp/out.csv'",
    "MERGE INTO city USING city c2 ON city.city_id = c2.city_id WHEN MATCHED THEN DELETE",
    "TRUNCATE TABLE sales",
    "SET search_path = evil",
    "GRANT ALL ON sales TO public",
    "SELECT pg_sleep(100)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_parquet('/tmp/x.parquet')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT nextval('seq')",
    "SELECT set_config('x', 'y', false)",
    "INSTALL httpfs",
    "LOAD httpfs",
    "EXPORT DATABASE '/tmp/x'",
    "USE other",
    "CALL something()",
    "EXECUTE stmt",
    "DO $$ BEGIN DELETE FROM sales; END $$",
    "LOCK TABLE sales",
    "COMMENT ON TABLE sales IS 'x'",
    "DECLARE c CURSOR FOR SELECT 1",
    "PREPARE p AS DELETE FROM sales",
    "CHECKPOINT",
    "SHOW TABLES",
    "DESCRIBE sales",
    "SELECT 1 UNION ALL SELECT 2; DELETE FROM sales",
]

# Not parseable as one read statement by construction: garbage and half statements.
GARBAGE = ["SELEC 1", "SELECT FROM WHERE", "DELETE", "); DROP TABLE sales; --", "' OR 1=1 --"]


def _reject(db: SqliteDatabase, sql: str) -> None:
    with pytest.raises(SqlRejected):
        db.execute(sql)


def test_hand_list_is_long_enough() -> None:
    assert len(HOSTILE) + len(GARBAGE) >= 140


@pytest.mark.parametrize("sql", HOSTILE + GARBAGE)
def test_hostile_statement_rejected_and_file_unchanged(sales_db: Path, sql: str) -> None:
    before = sha256(sales_db)
    db = SqliteDatabase(sales_db)
    _reject(db, sql)
    # the database still answers, and its bytes are the same
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    db.close()
    assert sha256(sales_db) == before


WRITE_VERBS = st.sampled_from(
    [
        "DELETE FROM sales",
        "UPDATE sales SET qty = 0",
        "INSERT INTO city VALUES (99, 'x', 'y', 1)",
        "DROP TABLE sales",
        "CREATE TEMP TABLE t AS SELECT 1",
        "ATTACH DATABASE '/tmp/h.db' AS h",
        "PRAGMA writable_schema = 1",
        "VACUUM INTO '/tmp/h_copy.db'",
        "REINDEX",
        "DETACH DATABASE main",
        "ALTER TABLE sales ADD COLUMN h INT",
        "PRAGMA user_version = 9",
    ]
)
PREFIXES = st.sampled_from(
    ["", "SELECT 1; ", "/* x */ ", "-- c\n", "WITH q AS (SELECT 1) ", "SELECT * FROM sales;\n", "  \n", "SELECT 1 ;"]
)
SUFFIXES = st.sampled_from(["", ";", " -- tail", "; SELECT 1", " /* tail */", ";\n"])


def _case(text: str, flips: list[bool]) -> str:
    # Flip letter case outside quotes only, so paths and literals keep their meaning.
    out, quoted = [], False
    for i, ch in enumerate(text):
        if ch == "'":
            quoted = not quoted
        out.append(ch.swapcase() if not quoted and flips[i % len(flips)] else ch)
    return "".join(out)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=PREFIXES, verb=WRITE_VERBS, suffix=SUFFIXES, flips=st.lists(st.booleans(), min_size=1, max_size=7))
def test_generated_hostile_statements_rejected(
    sales_db_template: Path,
    tmp_path_factory: pytest.TempPathFactory,
    prefix: str,
    verb: str,
    suffix: str,
    flips: list[bool],
) -> None:
    sql = _case(prefix + verb + suffix, flips)
    before = sha256(sales_db_template)
    db = SqliteDatabase(sales_db_template)
    try:
        _reject(db, sql)
    finally:
        db.close()
    assert sha256(sales_db_template) == before


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM sales",
        "UPDATE sales SET qty = 0",
        "INSERT INTO city VALUES (9, 'Rome', 'IT', 1)",
        "DROP TABLE sales",
        "CREATE TEMP TABLE x (a INT)",
        "ATTACH DATABASE ':memory:' AS m",
        "PRAGMA writable_schema = 1",
        "PRAGMA query_only = 0",
        "VACUUM INTO '/tmp/biarena-vacuum-copy.db'",
        "REINDEX",
        "SELECT load_extension('x')",
        "BEGIN",
        "SAVEPOINT s",
        "ANALYZE",
    ],
)
def test_engine_guard_refuses_even_without_the_parser_check(sales_db: Path, sql: str) -> None:
    """The SQLite authorizer and read-only mode stand alone behind the sqlglot check."""
    before = sha256(sales_db)
    db = SqliteDatabase(sales_db)
    with pytest.raises((SqlRejected, SqlError)):
        db._run(sql, timeout=5, max_rows=10)
    db.close()
    assert sha256(sales_db) == before
    assert not Path("/tmp/biarena-vacuum-copy.db").exists()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM sales",
        "select count(*) from sales where city_id = 1",
        "WITH t AS (SELECT city_id, sum(amount) s FROM sales GROUP BY city_id) SELECT * FROM t ORDER BY s DESC",
        "SELECT 1 UNION ALL SELECT 2",
        "VALUES (1, 2)",
        "SELECT 'DELETE FROM sales' AS text",
        "SELECT name FROM city WHERE name = 'drop table'",
        "SELECT 1; ",
        "SELECT 1 -- trailing comment",
        "/* leading */ SELECT 2",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT sum(x) FROM c",
        "SELECT (SELECT max(amount) FROM sales) AS m",
        "SELECT s.* FROM sales s JOIN city c ON c.city_id = s.city_id LIMIT 3",
        "SELECT date('now'), strftime('%Y', day) FROM sales LIMIT 1",
    ],
)
def test_reads_are_allowed(sales_db: Path, sql: str) -> None:
    db = SqliteDatabase(sales_db)
    result = db.execute(sql)
    assert result.columns


def test_check_read_only_reports_why() -> None:
    with pytest.raises(SqlRejected, match="exactly one statement"):
        check_read_only("SELECT 1; SELECT 2")
    with pytest.raises(SqlRejected, match="DELETE"):
        check_read_only("DELETE FROM t")
    with pytest.raises(SqlRejected, match="load_extension"):
        check_read_only("SELECT load_extension('x')")


def test_cartesian_self_join_is_interrupted(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, timeout=0.3)
    with pytest.raises(SqlTimeout, match="interrupted"):
        db.execute("SELECT count(*) FROM big a, big b, big c")
    # the connection is usable afterwards
    assert db.execute("SELECT count(*) FROM big").rows == [(3000,)]


def test_timeout_applies_while_fetching(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, timeout=0.3, max_rows=10**9)
    with pytest.raises(SqlTimeout):
        db.execute("SELECT a.n, b.n FROM big a, big b, big c")


def test_row_cap_sets_truncated(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db, max_rows=50)
    result = db.execute("SELECT * FROM sales")
    assert result.row_count == 50 and result.truncated
    exact = db.execute("SELECT * FROM sales LIMIT 50")
    assert exact.row_count == 50 and not exact.truncated


def test_engine_errors_are_typed(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    with pytest.raises(SqlError, match="no such column"):
        db.execute("SELECT reveune FROM sales")


def test_connection_is_read_only_at_the_file_level(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    with pytest.raises(sqlite3.OperationalError):
        db._conn.execute("CREATE TABLE z (a)")


def test_duckdb_sandbox(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "w.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t AS SELECT range AS n FROM range(3000)")
    conn.close()
    before = sha256(path)
    db = open_database(path, timeout=0.3)
    assert db.dialect == "duckdb"
    assert db.execute("SELECT count(*) FROM t").rows == [(3000,)]
    for sql in [
        "DELETE FROM t",
        "CREATE TABLE x (a INT)",
        "SELECT * FROM read_csv('/etc/passwd')",
        "COPY t TO '/tmp/x.csv'",
        "ATTACH '/tmp/d.duckdb' AS d",
        "SELECT 1; DROP TABLE t",
    ]:
        with pytest.raises(SqlRejected):
            db.execute(sql)
    with pytest.raises((SqlRejected, SqlError)):
        db._run("SELECT * FROM read_csv('/etc/passwd')", 5, 10)
    with pytest.raises((SqlRejected, SqlError)):
        db._run("INSERT INTO t VALUES (1)", 5, 10)
    with pytest.raises(SqlTimeout):
        db.execute("SELECT count(*) FROM t a, t b, t c, t d")
    assert db.execute("SELECT max(n) FROM t").rows == [(2999,)]
    db.close()
    assert sha256(path) == before
