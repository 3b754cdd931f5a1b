"""Clock anchoring rewrites the AST so time questions are reproducible; schema text for prompts."""

from datetime import datetime
from pathlib import Path

import pytest
import sqlglot

from biarena.db import anchor_clock, describe_schema, open_database, transpile

NOW = datetime(2023, 1, 17, 20, 20, 15)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT date('now')", "2023-01-17"),
        ("SELECT date('now', '-7 day')", "2023-01-10"),
        ("SELECT datetime('now')", "2023-01-17 20:20:15"),
        ("SELECT datetime('now', 'start of day')", "2023-01-17 00:00:00"),
        ("SELECT strftime('%Y-%m', 'now')", "2023-01"),
        ("SELECT date()", "2023-01-17"),
        ("SELECT CURRENT_DATE", "2023-01-17"),
        ("SELECT CURRENT_TIMESTAMP", "2023-01-17 20:20:15"),
        ("SELECT CURRENT_TIME", "20:20:15"),
        ("SELECT date('NOW', 'weekday 1', '-7 days')", "2023-01-16"),
        ("SELECT julianday('now') - julianday('2023-01-16 20:20:15')", 1.0),
    ],
)
def test_sqlite_clock_is_anchored(sales_db: Path, sql: str, expected: object) -> None:
    db = open_database(sales_db)
    assert db.execute(sql, now=NOW).rows[0][0] == expected


def test_now_inside_a_string_compare_is_left_alone(sales_db: Path) -> None:
    db = open_database(sales_db)
    assert db.execute("SELECT 'now' = 'now'", now=NOW).rows == [(1,)]
    tree = sqlglot.parse_one("SELECT * FROM t WHERE status = 'now'", read="sqlite")
    _, changed = anchor_clock(tree, NOW, "sqlite")
    assert not changed


def test_anchoring_is_ast_based_for_other_dialects() -> None:
    tree = sqlglot.parse_one("SELECT now(), CURRENT_DATE", read="postgres")
    anchored, changed = anchor_clock(tree, NOW, "postgres")
    assert changed
    text = anchored.sql(dialect="postgres")
    assert "2023-01-17 20:20:15" in text and "2023-01-17" in text and "NOW()" not in text.upper()


def test_duckdb_clock_is_anchored(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "c.duckdb"
    duckdb.connect(str(path)).close()
    db = open_database(path)
    row = db.execute("SELECT CAST(current_date AS VARCHAR), CAST(now() AS VARCHAR)", now=NOW).rows[0]
    assert row == ("2023-01-17", "2023-01-17 20:20:15")


def test_gold_in_sqlite_dialect_runs_on_duckdb(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE sales AS SELECT * FROM (VALUES ('2023-01-16', 3), ('2023-01-10', 4)) v(day, qty)")
    conn.close()
    db = open_database(path)
    sql = "SELECT sum(qty) FROM sales WHERE day >= date('now', '-3 day')"
    assert db.execute(sql, dialect="sqlite", now=NOW).rows == [(3,)]
    assert "DATE" in transpile("SELECT date('now')", "sqlite", "duckdb").upper()


def test_schema_description(sales_db: Path) -> None:
    text = describe_schema(open_database(sales_db), sample_rows=2, description="A little shop.")
    assert text.startswith("A little shop.")
    assert "CREATE TABLE sales" in text
    assert "sales.city_id -> city.city_id" in text
    assert "2 sample rows" in text
    # a mapping table is shown whole, as the meanings of its codes
    assert "status_mapping: meanings of codes" in text and "closed" in text
