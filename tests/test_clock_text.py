"""SQLite clock reads rewritten in the text, token by token: the same values as the parse-and-rewrite path, and
everything less plain left to that path."""

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
import sqlglot

from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool, anchor_clock, open_database
from biarena.db.clock_text import anchor_sqlite_text, may_read_clock

NOW = datetime(2023, 1, 17, 20, 20, 15)

PLAIN = [
    "SELECT date('now')",
    "SELECT date('now', '-7 day'), datetime('NOW ', 'start of month')",
    "SELECT strftime('%Y-%m', 'now') AS month -- the month of 'now'",
    "SELECT date(), datetime( ), time(), julianday(), unixepoch()",
    "SELECT CURRENT_DATE, current_time, Current_Timestamp",
    'SELECT date("now", \'-1 day\')',
    "SELECT julianday('now') - julianday(created) FROM t WHERE created <= datetime('now', '-1 month')",
    "WITH w AS (SELECT date('now', 'weekday 1', '-7 days') AS monday) SELECT monday FROM w",
    "SELECT datetime(CURRENT_TIMESTAMP, '+1 hour'), unixepoch('now') - unixepoch(created) FROM t",
    "SELECT date('now') FROM t WHERE note <> 'today' AND x = 'y'",
]
UNSURE = [
    "SELECT now()",
    "SELECT date(lower('NOW'))",
    "SELECT x IN ('now') FROM t",
    'SELECT "now" FROM t',
    "SELECT getdate()",
    "SELECT localtimestamp",
    "SELECT date((('now')))",
    "SELECT 'now' AS word, date('now') FROM t",
    "SELECT CURRENT_DATE()",
    "SELECT 'unterminated",
]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (created TEXT, note TEXT, x TEXT)")
        conn.execute("INSERT INTO t VALUES ('2022-12-01 10:00:00', 'today', 'now'), ('2023-01-10 08:00:00', 'n', 'y')")
    conn.close()
    return path


def ast_text(sql: str) -> str:
    tree, _ = anchor_clock(sqlglot.parse_one(sql, read="sqlite"), NOW, "sqlite")
    return tree.sql(dialect="sqlite")


@pytest.mark.parametrize("sql", PLAIN)
def test_the_text_rewrite_gives_what_the_tree_rewrite_gives(table: Path, sql: str) -> None:
    text = anchor_sqlite_text(sql, NOW)
    assert text is not None
    _, changed = anchor_clock(sqlglot.parse_one(text, read="sqlite"), datetime(2001, 1, 1), "sqlite", guard=False)
    assert not changed  # no clock read is left
    conn = sqlite3.connect(table)
    assert conn.execute(text).fetchall() == conn.execute(ast_text(sql)).fetchall()
    conn.close()


def test_only_the_clock_reads_change() -> None:
    sql = "SELECT /* 'now' */ date('now', '-1 day') AS \"d\", [nowadays], date (\n) FROM t -- CURRENT_DATE"
    assert anchor_sqlite_text(sql, NOW) == (
        "SELECT /* 'now' */ date('2023-01-17 20:20:15', '-1 day') AS \"d\", [nowadays], date ('2023-01-17 20:20:15'\n) "
        "FROM t -- CURRENT_DATE"
    )


@pytest.mark.parametrize("sql", UNSURE)
def test_anything_less_plain_is_left_to_the_parser(sql: str) -> None:
    assert anchor_sqlite_text(sql, NOW) is None


def test_the_sandbox_anchors_both_ways(table: Path) -> None:
    db = open_database(table)
    assert db.prepare("SELECT date('now', '-1 day')", now=NOW) == "SELECT date('2023-01-17 20:20:15', '-1 day')"
    assert db.execute("SELECT date(\"now\")", now=NOW).rows == [("2023-01-17",)]  # text path
    assert db.execute("SELECT date(lower('NOW'))", now=NOW).rows == [("2023-01-17",)]  # tree path
    # a parenthesised name that is no column: a string SQLite reads as the clock, the anchor as the statement runs
    assert db.execute("SELECT date((\"now\"))", now=NOW).rows == [("2023-01-17",)]
    assert db.execute("SELECT now()", now=NOW).rows == [("2023-01-17 20:20:15",)]


def test_a_double_quoted_now_argument_is_anchored_in_the_tree_too() -> None:
    assert ast_text('SELECT date("now", \'-1 day\')') == "SELECT DATE('2023-01-17 20:20:15', '-1 day')"
    assert ast_text('SELECT "now" FROM t') == 'SELECT "now" FROM t'


def test_every_bis_synth_gold_statement_gets_the_same_rows_both_ways(bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    pool = DatabasePool(benchmark)
    compared = 0
    for question in benchmark.questions:
        now = benchmark.anchor_for(question)
        for sql in question.gold_sql:
            if now is None or not may_read_clock(sql):
                continue
            text = anchor_sqlite_text(sql, now)
            if text is None:
                continue
            db = pool.get(question.database)
            tree, _ = anchor_clock(sqlglot.parse_one(sql, read="sqlite"), now, "sqlite")
            assert db.execute(text).rows == db.execute(tree.sql(dialect="sqlite")).rows, sql
            compared += 1
    assert compared >= 20
