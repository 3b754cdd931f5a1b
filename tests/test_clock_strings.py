"""What clock anchoring leaves alone (date/time words used as text), what it refuses and why, and that it is stable:
a statement the sandbox rewrote comes back unchanged when it is checked again."""

import re
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import SqlRejected, anchor_clock, open_database
from biarena.db.allowed_functions import ALLOWED_FUNCTIONS
from biarena.db.clock import fold_sqlite_time_calls
from biarena.db.clock_guard import RUNTIME_REFUSAL, runtime_refusal
from biarena.db.guard import parse_statements

NOW = datetime(2019, 3, 15, 10, 20, 30)


def anchored(sql: str, dialect: str) -> str:
    tree, _ = anchor_clock(parse_statements(sql, dialect)[0], NOW, dialect)
    return tree.sql(dialect=dialect)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'today' AS label",
        "SELECT 'today' AS label UNION ALL SELECT 'yesterday'",
        "SELECT lower('Today'), upper(x) FROM t",
        "SELECT * FROM t WHERE note LIKE '%now%' OR note ILIKE 'today%'",
        "SELECT 'x' || 'today', concat('now', x) FROM t",
        "SELECT * FROM t WHERE status = 'now'::text",
        "SELECT * FROM t WHERE 'today' = lower(status)",
        "SELECT coalesce('today', 'x')",
        "SELECT '{\"d\": \"today\"}'::jsonb, jsonb_path_query('\"today\"', '$')",
        "SELECT 'epoch'::date, 'infinity'::timestamp, '-infinity'::date, 'allballs'::time",
        "SELECT format('%s', 'now'), 'now'::varchar",
        "SELECT CASE WHEN x THEN 'today' ELSE 'later' END FROM t",
        "SELECT max(w) FROM (VALUES ('today'), ('x')) AS v(w)",
        "SELECT x FROM t WHERE x IN (SELECT 'today')",
        "SELECT * FROM t WHERE snow = 1 AND 'knowledge' = k AND 'nowhere' = n",
    ],
)
def test_postgres_leaves_words_it_reads_as_text(sql: str) -> None:
    assert anchored(sql, "postgres") == parse_statements(sql, "postgres")[0].sql(dialect="postgres")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t WHERE d > 'today'",
        "SELECT * FROM t WHERE status = 'shipped today'",
        "SELECT coalesce(d, 'tomorrow') FROM t",
        "SELECT d FROM t UNION SELECT 'yesterday'",
        "SELECT 'today 10:00'::my_composite",
    ],
)
def test_postgres_refuses_a_clock_word_it_cannot_type_in_one_line(sql: str) -> None:
    with pytest.raises(SqlRejected, match="current date or time") as refused:
        anchored(sql, "postgres")
    assert "\n" not in str(refused.value)


def test_a_refusal_names_the_way_out() -> None:
    with pytest.raises(SqlRejected, match=r"'now'::text for the words themselves"):
        anchored("SELECT * FROM t WHERE status = 'now'", "postgres")
    assert anchored("SELECT * FROM t WHERE status = 'now'::text", "postgres").endswith("CAST('now' AS TEXT)")


def test_duckdb_leaves_strings_in_comparisons_to_the_engine() -> None:
    # DuckDB reads no clock word: its own cast refuses d > 'today' (see tests/fixtures/clock/duckdb.yaml).
    sql = "SELECT * FROM t WHERE d > 'today' AND note = 'now'"
    assert anchored(sql, "duckdb") == sqlglot.parse_one(sql, read="duckdb").sql(dialect="duckdb")


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        ("SELECT CAST(x AS DATE), \"timestamp\"(y), ('n' || 'ow')::timestamp FROM t", "postgres"),
        ("SELECT date(x), strftime('%Y', lower(y)), date('now'), CURRENT_DATE FROM t", "sqlite"),
        ("SELECT now(), age(x), today() FROM t", "duckdb"),
    ],
)
def test_a_rewritten_statement_is_not_rewritten_again(sql: str, dialect: str) -> None:
    once = anchored(sql, dialect)
    assert once != sql
    again, changed = anchor_clock(parse_statements(once, dialect)[0], NOW, dialect)
    assert not changed and again.sql(dialect=dialect) == once


@pytest.mark.parametrize(
    "case",
    [
        "CASE WHEN unicode(x) IN (78, 110) AND CAST(x AS TEXT) LIKE 'now' THEN 'now' ELSE x END",
        "CASE WHEN 0 AND CAST(x AS TEXT) LIKE 'now' THEN '2019-03-15 10:20:30' ELSE x END",
        "CASE WHEN unicode(y) IN (78, 110) AND CAST(y AS TEXT) LIKE 'now' THEN '2019-03-15 10:20:30' ELSE x END",
    ],
)
def test_a_hand_made_look_alike_of_the_sqlite_check_is_still_checked(case: str) -> None:
    _, changed = anchor_clock(parse_statements(f"SELECT date({case}) FROM t", "sqlite")[0], NOW, "sqlite")
    assert changed


def test_folding_for_another_engine_never_reads_the_real_clock() -> None:
    tree = parse_statements("SELECT date('n' || 'ow'), date('2020-01-01', '+1 day')", "sqlite")[0]
    folded = fold_sqlite_time_calls(tree).sql(dialect="sqlite")
    assert "'2020-01-02'" in folded and "'n' || 'ow'" in folded


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a, SUM(b) FROM t GROUP BY a",
        "SELECT date('2020-01-01', '+1 day'), x FROM t",
        "SELECT DATETIME(ts) FROM t",
        "SELECT strftime('%Y', '2020-05-01') || upper(x) FROM t",
        "SELECT date('2020-01-01')",
    ],
)
def test_folding_in_place_gives_what_folding_a_copy_gives(sql: str) -> None:
    tree = parse_statements(sql, "sqlite")[0]
    untouched = tree.sql(dialect="sqlite")
    copied = fold_sqlite_time_calls(tree).sql(dialect="duckdb")
    assert tree.sql(dialect="sqlite") == untouched  # the default leaves the caller's tree alone
    assert fold_sqlite_time_calls(tree, copy=False).sql(dialect="duckdb") == copied
    if not any(name in sql.lower() for name in ("date", "time")):
        assert copied == parse_statements(sql, "sqlite")[0].sql(dialect="duckdb")


@pytest.mark.parametrize(
    ("sql", "folded"),
    [
        ("SELECT CAST(a AS REAL) / NULLIF(b, 0), IIF(a > 0, 1, 2), ROUND(ABS(a), 1) FROM t", None),
        ("SELECT CASE WHEN a THEN COALESCE(b, 0) END, lower(x) FROM t", None),
        ("SELECT CAST('2020-01-01' AS DATE), CAST(a AS REAL) FROM t", None),
        ("SELECT CAST(date('2020-01-01', '+1 day') AS TEXT), CAST(a AS REAL) FROM t", "'2020-01-02'"),
        ("SELECT COALESCE(a, datetime('2020-01-01', '+1 hour')) FROM t", "'2020-01-01 01:00:00'"),
        ("SELECT NULLIF(julianday('2020-01-02') - julianday('2020-01-01'), 0)", "2458850.5 - 2458849.5"),
        ("SELECT \"date\"('2020-01-01')", "SELECT '2020-01-01'"),
    ],
)
def test_folding_finds_time_calls_behind_casts_and_plain_calls(sql: str, folded: str | None) -> None:
    tree = parse_statements(sql, "sqlite")[0]
    out = fold_sqlite_time_calls(tree).sql(dialect="duckdb")
    if folded is None:
        assert out == tree.sql(dialect="duckdb")
    else:
        assert folded in out and out != tree.sql(dialect="duckdb")


def test_sqlite_gold_on_duckdb_is_anchored_before_it_is_translated(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "g.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t (w VARCHAR)")
    conn.execute("INSERT INTO t VALUES ('2020-01-01')")
    conn.close()
    db = open_database(path)
    # DuckDB's casts read no clock word, so the translation's CAST(w AS DATE) runs as translated.
    assert str(db.execute("SELECT date(w) FROM t", dialect="sqlite", now=NOW).rows[0][0]) == "2020-01-01"
    assert str(db.execute("SELECT date('now', '+1 day')", dialect="sqlite", now=NOW).rows[0][0]) == "2019-03-16"


def test_an_engine_error_from_the_run_time_check_is_a_one_line_refusal() -> None:
    message = f'invalid input syntax for type date: "{RUNTIME_REFUSAL} (Today 10:00)"\nLINE 1: ...'
    refused = runtime_refusal(message)
    assert isinstance(refused, SqlRejected) and "'Today 10:00'" in str(refused) and "\n" not in str(refused)
    assert runtime_refusal('invalid input syntax for type date: "2019-13-01"') is None


def test_sqlite_reads_a_stored_now_as_the_anchor_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (w TEXT)")
        conn.execute("INSERT INTO t VALUES ('NOW'), ('2020-01-01')")
    conn.close()
    db = open_database(path)
    text_path = db.execute("SELECT date(w) FROM t", now=NOW).rows
    tree_path = db.execute("SELECT date(lower(w)) FROM t", now=NOW).rows
    assert text_path == tree_path == [("2019-03-15",), ("2020-01-01",)]


CLOCK_NAME = re.compile(r"current|now|today|clock|sysdate|cur(date|time)|utc_|local|transaction|statement|unix_time")


@pytest.mark.parametrize("dialect", sorted(ALLOWED_FUNCTIONS))
def test_every_allowed_function_named_for_the_clock_is_anchored(dialect: str) -> None:
    names = sorted(name for name in ALLOWED_FUNCTIONS[dialect] if CLOCK_NAME.search(name))
    assert "now" in names and "current_date" in names
    for name in names:
        for call in (f"{name}()", name):
            try:
                tree = parse_statements(f"SELECT {call}", dialect)[0]
            except SqlglotError:
                continue  # a keyword that takes no parentheses there
            if tree.find(exp.Column) is not None:
                continue  # without parentheses, a column's name
            text = anchor_clock(tree, NOW, dialect)[0].sql(dialect=dialect)
            assert "2019-03-15" in text or "10:20:30" in text, (dialect, call, text)
