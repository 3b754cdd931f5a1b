"""The drafted roles' questions graded against hand-written answer keys, and the grader itself checked.

The spec a drafted roles file must meet on each database: at least 30 questions; at least 90% free of the three
faults (a key aggregated, a contact column grouped or filtered by, an audit or birth column used as time); at least 5
questions on each main fact; at least 4 measures and 4 dimensions where the key lists as many; no two columns
under one name. The same database on SQLite and DuckDB gives the same questions with the same gold results.
"""

import math
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from tests.draft_quality import (
    AnswerKey,
    ColumnResolver,
    Report,
    generate_benchmark,
    grade_benchmark,
    grade_sql,
    load_key,
    main,
    roles_collisions,
    trivial_roles,
)
from tests.sample_databases import SHOP_VIEW_SQL, build_shop_sqlite, sqlite_to_duckdb

FIXTURES = Path(__file__).parent / "fixtures"
KEYS = FIXTURES / "draft_keys"
CHINOOK = FIXTURES / "chinook" / "chinook.sqlite"
MIN_QUESTIONS = 30
MIN_CLEAN_SHARE = 0.9
MIN_PER_FACT = 5
MIN_MEASURES = MIN_DIMENSIONS = 4

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    """Chinook and the awkward shop, each as an SQLite and a DuckDB file."""
    root = tmp_path_factory.mktemp("samples")
    shop = build_shop_sqlite(root / "awkward_shop.sqlite")
    return {
        "chinook": {"sqlite": CHINOOK, "duckdb": sqlite_to_duckdb(CHINOOK, root / "chinook.duckdb")},
        "awkward_shop": {
            "sqlite": shop,
            "duckdb": sqlite_to_duckdb(shop, root / "awkward_shop.duckdb", {"order_totals": SHOP_VIEW_SQL}),
        },
    }


def spec_failures(report: Report, key: AnswerKey) -> list[str]:
    """What the drafted questions miss of the spec, one line each."""
    failures = []
    if len(report.grades) < MIN_QUESTIONS:
        failures.append(f"{len(report.grades)} questions, fewer than {MIN_QUESTIONS}")
    if report.clean_share < MIN_CLEAN_SHARE:
        counts = ", ".join(f"{f} {n}" for f, n in sorted(report.fault_counts().items()))
        failures.append(f"{report.clean_share:.0%} free of faults, under {MIN_CLEAN_SHARE:.0%} ({counts})")
    for fact, count in report.per_fact().items():
        if count < MIN_PER_FACT:
            failures.append(f"{count} questions on main fact {fact}, fewer than {MIN_PER_FACT}")
    wanted_measures = min(MIN_MEASURES, len(key.measures) or MIN_MEASURES)
    wanted_dimensions = min(MIN_DIMENSIONS, len(key.dimensions) or MIN_DIMENSIONS)
    if len(report.measures()) < wanted_measures:
        failures.append(f"{len(report.measures())} measures used, fewer than {wanted_measures}")
    if len(report.dimensions()) < wanted_dimensions:
        failures.append(f"{len(report.dimensions())} dimensions used, fewer than {wanted_dimensions}")
    for name, places in report.collisions.items():
        failures.append(f"name '{name}' given to {', '.join(places)}")
    return failures


def drafted_report(location: Path, key: AnswerKey, out: Path) -> Report:
    """The questions of the default draft over a database, graded."""
    from biarena.yaml_load import load_yaml
    from tests.draft_quality import drafted_roles_text

    bench = generate_benchmark(str(location), out)
    roles = load_yaml(drafted_roles_text(str(location)), "drafted roles")
    return grade_benchmark(bench, str(location), key, roles, "draft")


@pytest.mark.parametrize("name", ["chinook", "awkward_shop"])
@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_drafted_questions_meet_the_spec(databases, tmp_path: Path, name: str, engine: str) -> None:
    key = load_key(KEYS / f"{name}.yaml")
    report = drafted_report(databases[name][engine], key, tmp_path / "bench")
    failures = spec_failures(report, key)
    assert not failures, f"{name} on {engine}:\n" + "\n".join(failures)


def _comparable(value: object) -> object:
    if isinstance(value, Decimal | float):
        return None if math.isnan(float(value)) else round(float(value), 6)
    if isinstance(value, datetime | date):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    return value


@pytest.mark.parametrize("name", ["chinook", "awkward_shop"])
def test_sqlite_and_duckdb_give_the_same_questions_and_results(databases, tmp_path: Path, name: str) -> None:
    from biarena.benchmarks import load_benchmark
    from biarena.db import open_database

    results = {}
    for engine, location in databases[name].items():
        bench = load_benchmark(generate_benchmark(str(location), tmp_path / engine), check_files=False)
        with open_database(location) as db:
            results[engine] = [
                (
                    q.text,
                    sorted(
                        (tuple(_comparable(v) for v in row) for row in db.execute(q.gold_sql[0], now=bench.now).rows),
                        key=repr,
                    ),
                )
                for q in bench.questions
            ]
    assert [t for t, _ in results["sqlite"]] == [t for t, _ in results["duckdb"]]
    assert results["sqlite"] == results["duckdb"]


# The grader on hand-written SQL: (sql, dialect, faults expected). Chinook's tables, its answer key.
GRADED = [
    ('SELECT SUM("CustomerId") FROM "Invoice"', "sqlite", {"key_aggregated"}),
    ("SELECT AVG(i.CustomerId) FROM Invoice AS i WHERE i.BillingCountry = 'Austria'", "sqlite", {"key_aggregated"}),
    ('SELECT MAX("TrackId") FROM "InvoiceLine"', "sqlite", {"key_aggregated"}),
    ('SELECT COUNT(*) FROM "Invoice"', "sqlite", set()),
    ('SELECT COUNT(DISTINCT "CustomerId") FROM "Invoice"', "sqlite", set()),
    ('SELECT SUM("Total") FROM "Invoice" WHERE "CustomerId" = 5', "sqlite", set()),
    (
        'SELECT SUM(CASE WHEN "GenreId" = 1 THEN "Milliseconds" END) * 1.0 / SUM("Milliseconds") FROM "Track"',
        "sqlite",
        set(),
    ),
    ("SELECT AVG(x) FROM (SELECT CustomerId AS x FROM Invoice) AS s", "sqlite", {"key_aggregated"}),
    ("SELECT AVG(x) FROM (SELECT Total AS x FROM Invoice) AS s", "sqlite", set()),
    (
        'SELECT c."Fax", SUM(i."Total") FROM "Invoice" AS i JOIN "Customer" AS c ON i."CustomerId" = c."CustomerId" '
        'GROUP BY c."Fax"',
        "sqlite",
        {"contact_grouped"},
    ),
    ('SELECT SUM("Total") FROM "Invoice" WHERE "BillingPostalCode" = \'T6G 2C7\'', "sqlite", {"contact_grouped"}),
    (
        'SELECT "Country", SUM(i."Total") FROM "Invoice" AS i JOIN "Customer" AS c ON i."CustomerId" = c."CustomerId" '
        'GROUP BY "Country"',
        "sqlite",
        set(),
    ),
    # Name is in Genre, MediaType, Artist and Playlist: the alias decides, and neither is a contact column
    (
        'SELECT m."Name", SUM(t."Bytes") FROM "Track" AS t JOIN "MediaType" AS m ON t."MediaTypeId" = m."MediaTypeId" '
        'GROUP BY m."Name"',
        "sqlite",
        set(),
    ),
    ('SELECT "LastName", COUNT(*) FROM "Employee" GROUP BY "LastName"', "sqlite", {"contact_grouped"}),
    ('SELECT strftime(\'%Y-%m\', "BirthDate"), COUNT(*) FROM "Employee" GROUP BY 1', "sqlite", {"audit_as_time"}),
    ('SELECT COUNT(*) FROM "Employee" WHERE "BirthDate" >= \'1960-01-01\'', "sqlite", {"audit_as_time"}),
    ('SELECT SUM("Total") FROM "Invoice" WHERE "InvoiceDate" >= \'2024-01-01\'', "sqlite", set()),
    (
        'SELECT date_trunc(\'month\', "BirthDate") AS m, COUNT(*) FROM "Employee" GROUP BY m',
        "duckdb",
        {"audit_as_time"},
    ),
    ('SELECT date_trunc(\'month\', "InvoiceDate") AS m, SUM("Total") FROM "Invoice" GROUP BY m', "postgres", set()),
]


@pytest.fixture(scope="module")
def chinook_grader() -> tuple[AnswerKey, ColumnResolver]:
    """Chinook's answer key and a resolver over its tables."""
    from tests.draft_quality import schema_columns

    columns, _ = schema_columns(str(CHINOOK))
    return load_key(KEYS / "chinook.yaml"), ColumnResolver(columns)


@pytest.mark.parametrize(("sql", "dialect", "expected"), GRADED)
def test_grader_flags_exactly_the_faults(chinook_grader, sql: str, dialect: str, expected: set[str]) -> None:
    key, resolver = chinook_grader
    grade = grade_sql(sql, dialect, key, resolver)
    assert {f for f, found in grade.faults.items() if found} == expected


def test_grader_resolves_measures_dimensions_and_from_tables(chinook_grader) -> None:
    key, resolver = chinook_grader
    grade = grade_sql(
        'SELECT g."Name", SUM(il."UnitPrice" * il."Quantity") FROM "InvoiceLine" AS il '
        'JOIN "Track" AS t ON il."TrackId" = t."TrackId" JOIN "Genre" AS g ON t."GenreId" = g."GenreId" '
        'WHERE g."Name" <> \'Rock\' GROUP BY g."Name"',
        "sqlite",
        key,
        resolver,
    )
    assert grade.clean
    assert grade.from_tables == {"invoiceline"}
    assert grade.measures == {("invoiceline", "unitprice"), ("invoiceline", "quantity")}
    assert grade.dimensions == {("genre", "name")}


def test_collisions_and_the_trivial_rule() -> None:
    roles = {
        "facts": [
            {
                "table": "Track",
                "metrics": [
                    {"column": "Bytes", "names": {"en": "bytes"}},
                    {"column": "GenreId", "names": {"en": "genre id"}},
                ],
                "dimensions": [
                    {"column": "Name", "table": "Genre", "names": {"en": "name"}},
                    {"column": "Name", "table": "MediaType", "names": {"en": "Name"}},
                    {"column": "Fax", "table": "Customer", "names": {"en": "fax"}},
                ],
            },
            {"table": "Invoice", "metrics": [{"column": "CustomerId", "names": {"en": "customer id"}}]},
        ]
    }
    assert roles_collisions(roles) == {"name": ["genre.name", "mediatype.name"]}
    trivial = trivial_roles(roles)
    assert [f["table"] for f in trivial["facts"]] == ["Track"]
    assert [m["column"] for m in trivial["facts"][0]["metrics"]] == ["Bytes"]
    assert [d["table"] for d in trivial["facts"][0]["dimensions"]] == ["Genre", "MediaType"]


def test_command_line_refuses_a_missing_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--key", str(tmp_path / "none.yaml"), "--db", str(CHINOOK)]) == 2
    assert "answer key not found" in capsys.readouterr().err


def test_every_key_file_loads_and_names_its_facts() -> None:
    keys = sorted(KEYS.glob("*.yaml"))
    assert len(keys) >= 16
    for path in keys:
        key = load_key(path)
        assert key.facts and key.keys, path.name
        tables = {t for t, _ in key.keys}
        assert all(f.lower() in tables for f in key.facts), path.name
