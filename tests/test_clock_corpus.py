"""Every way each engine reads its clock (tests/fixtures/clock/, one statement per entry), run through the sandbox at
a fixed anchor on a real engine: each gives the value at the anchor or is refused for reading the clock, and none
gives the real day. Each also runs on the bare engine, which must give the value at the real clock: an entry that
does not really read the clock fails there."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from biarena.db import Database, SqlError, SqlRejected, open_database
from biarena.db.allowed_functions import allowed_functions
from tests.conftest import ROOT
from tests.postgres_server import (
    create_database,
    create_read_only_role,
    postgres_server,
    require_postgres,
)

ANCHOR = datetime(2019, 3, 15, 10, 20, 30)
CORPUS = ROOT / "tests" / "fixtures" / "clock"
CLOCK_REASON = re.compile(r"current (date|time|moment)|clock")
WORDS = ("now", "NOW", "today", "Today", "tomorrow", "yesterday")
_ANCHOR_TIME = {"hour": ANCHOR.hour, "minute": ANCHOR.minute, "second": ANCHOR.second, "microsecond": 0}
Run = Callable[[str], Any]


def corpus(engine: str) -> list[dict]:
    """The entries for one engine."""
    return yaml.safe_load((CORPUS / f"{engine}.yaml").read_text(encoding="utf-8"))


def render(template: str, clock: datetime) -> str:
    """`template` at `clock` (see tests/fixtures/clock/README.md)."""
    day = clock.date()
    return template.format(
        today=day.isoformat(),
        tomorrow=(day + timedelta(days=1)).isoformat(),
        yesterday=(day - timedelta(days=1)).isoformat(),
        now=clock.strftime("%Y-%m-%d %H:%M:%S"),
        time=clock.strftime("%H:%M:%S"),
        year=clock.year,
    )


def cell(value: Any) -> str:
    """A result value as the templates write it."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return value.strftime("%H:%M:%S")
    if isinstance(value, float | Decimal) and value == int(value):
        return str(int(value))
    return str(value)


def real_clocks() -> list[datetime]:
    """The real time as UTC and as local time (engines differ in which they use for 'today')."""
    return [datetime.now(UTC).replace(tzinfo=None), datetime.now()]


def real_days(clocks: list[datetime]) -> set[str]:
    """The real day and the days either side, as ISO dates."""
    return {(c.date() + timedelta(days=shift)).isoformat() for c in clocks for shift in (-1, 0, 1)}


def day_rows() -> list[date]:
    """The anchor's day and the real day, each with the days either side."""
    return sorted(
        {(day + timedelta(days=shift)) for day in (ANCHOR.date(), date.today()) for shift in (-1, 0, 1)}
        | {(datetime.now(UTC).date() + timedelta(days=shift)) for shift in (-1, 0, 1)}
    )


def check(entry: dict, sandboxed: Callable[[str], list[tuple]], raw: Run) -> None:
    """The entry's outcome through the sandbox, and its value on the bare engine (see the corpus README)."""
    sql, template = entry["sql"], entry["value"]
    expected = render(template, ANCHOR)
    outcome = entry.get("sandbox", "anchored")
    before = real_clocks()
    forbidden = real_days(before)
    try:
        rows = sandboxed(sql)
    except SqlRejected as refused:
        assert outcome == "refused", f"refused: {refused}"
        assert CLOCK_REASON.search(str(refused)), str(refused)
        assert "\n" not in str(refused)
    except SqlError as failed:
        assert outcome == "error", f"failed: {failed}"
        assert not any(day in str(failed) for day in forbidden), str(failed)
    else:
        assert outcome == "anchored", f"ran and gave {rows[:3]}"
        assert cell(rows[0][0]) == expected
        shown = " ".join(cell(value) for row in rows for value in row)
        assert not any(day in shown for day in forbidden), shown
    if entry.get("raw", "clock") == "error":
        with pytest.raises(Exception):  # noqa: B017 - each engine has its own error classes
            raw(sql)
        return
    value = cell(raw(sql))
    clocks = before + real_clocks()
    by_chance = "{time}" in template and any(abs((c - c.replace(**_ANCHOR_TIME)).total_seconds()) < 5 for c in clocks)
    assert by_chance or value != expected, "the bare engine gives the anchor's value: the entry does not read the clock"
    if "{now}" in template or "{time}" in template:
        # The seconds moved on meanwhile: the day is what must be the real one.
        assert "{time}" in template or any(value[:10] == render(template, c)[:10] for c in clocks), value
    else:
        assert value in {render(template, c) for c in clocks}, value


def make_sqlite(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE days (d TEXT)")
        conn.execute("CREATE TABLE words (w TEXT)")
        conn.executemany("INSERT INTO days VALUES (?)", [(d.isoformat(),) for d in day_rows()])
        conn.executemany("INSERT INTO words VALUES (?)", [(w,) for w in WORDS])
    conn.close()
    return path


def fill_duckdb(conn: Any) -> None:
    conn.execute("CREATE TABLE days (d DATE)")
    conn.execute("CREATE TABLE words (w VARCHAR)")
    conn.executemany("INSERT INTO days VALUES (?)", [(d,) for d in day_rows()])
    conn.executemany("INSERT INTO words VALUES (?)", [(w,) for w in WORDS])


def first(rows: list) -> Any:
    return rows[0][0]


@pytest.fixture(scope="module")
def sqlite_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, Run]]:
    path = make_sqlite(tmp_path_factory.mktemp("clock") / "clock.sqlite")
    db = open_database(path)
    bare = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    yield db, lambda sql: first(bare.execute(sql).fetchall())
    bare.close()
    db.close()


@pytest.fixture(scope="module")
def duckdb_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, Run]]:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path_factory.mktemp("clock") / "clock.duckdb"
    conn = duckdb.connect(str(path))
    fill_duckdb(conn)
    conn.close()
    db = open_database(path)
    # The same tables in memory: DuckDB opens a file once per process, with the sandbox's settings.
    bare = duckdb.connect()
    fill_duckdb(bare)
    yield db, lambda sql: first(bare.execute(sql).fetchall())
    bare.close()
    db.close()


@pytest.fixture(scope="module")
def postgres_engine() -> Iterator[tuple[Database, Run]]:
    require_postgres()
    import sqlalchemy as sa

    with postgres_server() as base:
        url = create_database(base, "clock")
        admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql("CREATE TABLE days (d date)")
            conn.exec_driver_sql("CREATE TABLE words (w text)")
            for day in day_rows():
                conn.exec_driver_sql(f"INSERT INTO days VALUES ('{day.isoformat()}')")
            for word in WORDS:
                conn.exec_driver_sql(f"INSERT INTO words VALUES ('{word}')")
        db = open_database(create_read_only_role(base, "clock"))

        def bare(sql: str) -> Any:
            with admin.connect() as conn:
                return first(conn.execution_options(no_parameters=True).exec_driver_sql(sql).fetchall())

        yield db, bare
        db.close()
        admin.dispose()


def _entries(engine: str) -> list:
    return [pytest.param(entry, id=entry["sql"]) for entry in corpus(engine)]


@pytest.mark.parametrize("entry", _entries("sqlite"))
def test_sqlite_reads_no_real_clock(sqlite_engine: tuple[Database, Run], entry: dict) -> None:
    db, bare = sqlite_engine
    check(entry, lambda sql: db.execute(sql, now=ANCHOR).rows, bare)


@pytest.mark.parametrize("entry", _entries("duckdb"))
def test_duckdb_reads_no_real_clock(duckdb_engine: tuple[Database, Run], entry: dict) -> None:
    db, bare = duckdb_engine
    check(entry, lambda sql: db.execute(sql, now=ANCHOR).rows, bare)


@pytest.mark.parametrize("entry", _entries("postgres"))
def test_postgres_reads_no_real_clock(postgres_engine: tuple[Database, Run], entry: dict) -> None:
    db, bare = postgres_engine
    check(entry, lambda sql: db.execute(sql, now=ANCHOR).rows, bare)


def _probe(fake_time: str) -> dict[str, list]:
    """tests/clock_probe.py's results with the real clock set to `fake_time`."""
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        ["faketime", fake_time, sys.executable, "-m", "tests.clock_probe", ANCHOR.isoformat()],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        check=True,
    )
    return json.loads(done.stdout)


def test_duckdb_every_function_that_reads_the_real_clock_is_anchored() -> None:
    """Every allowed DuckDB function, called with no argument, a timestamp or a date, at two real times: what moves
    with the real clock on the bare engine stays put through the sandbox."""
    pytest.importorskip("duckdb")
    if shutil.which("faketime") is None:
        if os.environ.get("CI"):
            pytest.fail("faketime must be installed in CI (scripts/test installs it)")
        pytest.skip("faketime is not installed")
    early, late = _probe("2021-06-01 08:00:00"), _probe("2031-07-04 22:01:02")
    # random() moves too, with no clock; everything else that moves reads the clock.
    moved = {sql for sql in early if early[sql][0] != late[sql][0] and "random(" not in sql}
    for name in ("now()", "today()", "get_current_timestamp()", "current_localtime()", "age(DATE", "current_date "):
        assert any(name in sql for sql in moved), f"{name} did not move with the fake clock"
    for sql in moved:
        assert early[sql][1] == late[sql][1] and not early[sql][1].startswith("Sql"), (sql, early[sql], late[sql])
        assert "2019-03-15" in early[sql][1] or "10:20:30" in early[sql][1] or "19 years" in early[sql][1], sql


def test_postgres_every_clock_function_it_allows_is_anchored(postgres_engine: tuple[Database, Run]) -> None:
    """Every PostgreSQL function that takes nothing and returns a date or a time is off the allow-list or anchored,
    and so is age() of one argument."""
    db, bare = postgres_engine
    listed = bare(
        "SELECT string_agg(DISTINCT proname, ' ') FROM pg_proc WHERE pronargs = 0 AND prorettype IN "
        "('date'::regtype, 'time'::regtype, 'timetz'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype)"
    ).split()
    assert {"now", "clock_timestamp", "pg_postmaster_start_time"} <= set(listed)
    allowed = [name for name in listed if name in allowed_functions("postgres")]
    assert {"now", "clock_timestamp", "statement_timestamp", "transaction_timestamp"} <= set(allowed)
    for call in [f"{name}()" for name in allowed] + ["age(timestamp '2000-01-02')"]:
        text = db.prepare(f"SELECT {call}", now=ANCHOR)
        assert call.split("(")[0] + "(" not in text.lower() or "2019-03-15" in text, text
        assert cell(bare(text)) != cell(bare(f"SELECT {call}")), call


def test_sqlite_statements_on_postgres_check_the_casts_their_translation_makes(
    postgres_engine: tuple[Database, Run],
) -> None:
    db, _ = postgres_engine
    # date(w) is CAST(w AS DATE) in PostgreSQL, which reads 'today' from the clock.
    with pytest.raises(SqlRejected, match="names the current moment"):
        db.execute("SELECT max(date(w)) FROM words WHERE w LIKE 'tod%'", dialect="sqlite", now=ANCHOR)
    rows = db.execute("SELECT max(date(d)) FROM days WHERE d <= date('now')", dialect="sqlite", now=ANCHOR).rows
    assert cell(rows[0][0]) == "2019-03-15"


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", "postgres"])
def test_each_corpus_covers_its_engine(engine: str) -> None:
    entries = corpus(engine)
    statements = [entry["sql"] for entry in entries]
    assert len(set(statements)) == len(statements)
    assert all(set(entry) <= {"sql", "value", "sandbox", "raw"} for entry in entries)
    outcomes = {entry.get("sandbox", "anchored") for entry in entries}
    assert len(entries) >= 40 and "anchored" in outcomes
    assert engine == "sqlite" or "refused" in outcomes  # SQLite's values are anchored as they are read
