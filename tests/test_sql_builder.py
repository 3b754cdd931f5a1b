"""Each dialect-sensitive builder means the same on SQLite (text dates), DuckDB (typed and text) and PostgreSQL."""

from collections import Counter
from datetime import date, datetime, timedelta

import pytest
from sqlglot import exp

from biarena.db import open_database
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from tests.engine_fixtures import shop, shop_files, shop_location, shop_postgres  # noqa: F401
from tests.shop_engines import LAST_ORDER, Shop, normalized

ENGINES = ("sqlite", "duckdb", "duckdb_text", "postgres")


def _rows(location: str, build: "callable") -> list[tuple]:  # type: ignore[valid-type]
    with open_database(location) as db:
        ref = ColumnTypes(db).ref("orders", "order_date")
        query = build(ref, db.dialect)
        return [tuple(normalized(v) for v in row) for row in db.execute(sb.render(query, db.dialect)).rows]


def _moments(rows: Shop) -> list[datetime]:
    return [row[3] for row in rows.orders]


def _per(bucket: exp.Expression, name: str = "period") -> exp.Select:
    return (
        exp.select(exp.alias_(bucket, name), exp.alias_(sb.count_rows(), "n"))
        .from_(sb.table("orders"))
        .group_by(bucket.copy())
        .order_by(exp.column(name))
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_storage_is_read_from_the_schema(engine: str, request: pytest.FixtureRequest) -> None:
    with open_database(shop_location(engine, request)) as db:
        types = ColumnTypes(db)
        expected = {"duckdb": "timestamp", "postgres": "timestamp"}.get(engine, "text")
        assert types.ref("orders", "order_date").storage == expected
        assert types.ref("orders", "revenue").storage == "number"
        assert types.ref("customers", "signup_date").storage == {"duckdb": "date", "postgres": "date"}.get(
            engine, "text"
        )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("unit", ["week", "month", "quarter", "year"])
def test_truncate(engine: str, unit: str, shop: Shop, request: pytest.FixtureRequest) -> None:  # noqa: F811
    def start(moment: datetime) -> date:
        day = moment.date()
        if unit == "week":
            return day - timedelta(days=day.weekday())
        if unit == "month":
            return day.replace(day=1)
        if unit == "quarter":
            return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
        return date(day.year, 1, 1)

    expected = sorted(Counter(start(m) for m in _moments(shop)).items())
    rows = _rows(shop_location(engine, request), lambda ref, d: _per(sb.truncate(ref, unit, d)))  # type: ignore[arg-type]
    assert rows == [tuple(pair) for pair in expected]


@pytest.mark.parametrize("engine", ENGINES)
def test_hour_and_day(engine: str, shop: Shop, request: pytest.FixtureRequest) -> None:  # noqa: F811
    location = shop_location(engine, request)
    hours = sorted(Counter(m.replace(minute=0, second=0) for m in _moments(shop)).items())
    got = _rows(location, lambda ref, d: _per(sb.truncate(ref, "hour", d)))
    assert got == [(normalized(h), n) for h, n in hours]
    days = sorted(Counter(m.date() for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.day(ref, d))) == days


@pytest.mark.parametrize("engine", ENGINES)
def test_day_of_week_and_parts(engine: str, shop: Shop, request: pytest.FixtureRequest) -> None:  # noqa: F811
    location = shop_location(engine, request)
    sunday_first = sorted(Counter((m.weekday() + 1) % 7 for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.day_of_week(ref, d))) == sunday_first
    quarters = sorted(Counter((m.month + 2) // 3 for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.date_part(ref, "quarter", d))) == quarters
    years = sorted(Counter(m.year for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.date_part(ref, "year", d))) == years
    hours = sorted(Counter(m.hour for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.date_part(ref, "hour", d))) == hours
    months = sorted(Counter(m.strftime("%Y-%m") for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.month_label(ref, d))) == months
    labels = sorted(Counter(str(m.year) for m in _moments(shop)).items())
    assert _rows(location, lambda ref, d: _per(sb.year_label(ref, d))) == labels


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("days", [1, 7, 30])
def test_last_days(engine: str, days: int, shop: Shop, request: pytest.FixtureRequest) -> None:  # noqa: F811
    expected = sum(m >= LAST_ORDER - timedelta(days=days) for m in _moments(shop))

    def build(ref: sb.ColumnRef, d: str) -> exp.Select:
        return exp.select(sb.count_rows()).from_(sb.table("orders")).where(sb.last_days(ref, days, LAST_ORDER, d))

    assert _rows(shop_location(engine, request), build) == [(expected,)]


@pytest.mark.parametrize("engine", ENGINES)
def test_year_over_year(engine: str, shop: Shop, request: pytest.FixtureRequest) -> None:  # noqa: F811
    today = LAST_ORDER.date()
    this_start, last_start, last_end = date(today.year, 1, 1), date(today.year - 1, 1, 1), sb.year_before(today)
    this_year = sum(row[6] for row in shop.orders if this_start <= row[3].date() <= today)
    last_year = sum(row[6] for row in shop.orders if last_start <= row[3].date() <= last_end)

    def build(ref: sb.ColumnRef, d: str) -> exp.Select:
        revenue = sb.column(sb.ColumnRef("revenue"))
        now = sb.aggregate("sum", sb.when_then(sb.days_between(ref, this_start, today, d), revenue.copy()))
        before = sb.aggregate("sum", sb.when_then(sb.days_between(ref, last_start, last_end, d), revenue.copy()))
        change = exp.Sub(this=sb.percent(now.copy(), before.copy()), expression=exp.Literal.number(100))
        return exp.select(now, before, sb.rounded(change, 2, d)).from_(sb.table("orders"))

    expected = (round(this_year, 4), round(last_year, 4), round(round(100 * this_year / last_year - 100, 2), 4))
    assert _rows(shop_location(engine, request), build) == [expected]


@pytest.mark.parametrize("engine", ENGINES)
def test_shift_by_days(engine: str, request: pytest.FixtureRequest) -> None:
    anchor = date(2024, 3, 1)

    def build(ref: sb.ColumnRef, d: str) -> exp.Select:
        day = sb.date_literal(anchor, d)
        return exp.select(sb.shift(day, -1, d), sb.shift(day.copy(), 31, d))

    assert _rows(shop_location(engine, request), build) == [(date(2024, 2, 29), date(2024, 4, 1))]
