"""`generate roles`: a roles file drafted from the schema, that a person can read and the factory can use."""

import json
from pathlib import Path

import pytest
import yaml

from biarena.db import open_database
from biarena.generate.factory import generate_question_set, latest_time
from biarena.generate.roles import Roles, load_roles
from biarena.generate.roles_check import check_roles
from biarena.generate.roles_draft import draft_roles
from biarena.synth import generate, vertical_names, vertical_spec
from tests.shop_engines import make_shop, write_sqlite
from tests.test_cli import assert_user_error, biarena

MIN_QUESTIONS = 20
"""Questions a drafted roles file must give per database, each with gold that runs."""


def _questions_from_draft(location: str | Path, name: str) -> int:
    with open_database(location) as db:
        text = draft_roles(db, name)
        roles = Roles.model_validate(yaml.safe_load(text))
        check_roles(roles, db, "draft")
        anchor = latest_time(db, roles)
        made = generate_question_set(db, roles, languages=("en",), per_category=3, seed=0, now=anchor)
        for question in made.questions:
            db.execute(question.gold_sql[0], now=anchor)
        return len(made.questions)


def test_draft_of_the_shop_reads_like_a_hand_written_one(tmp_path: Path) -> None:
    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    with open_database(path) as db:
        text = draft_roles(db, "shop")
    assert text.startswith("# Column roles of shop")
    roles = Roles.model_validate(yaml.safe_load(text))
    orders = next(f for f in roles.facts if f.table == "orders")
    assert orders.time is not None and orders.time.column == "order_date" and orders.time.grain == "hour"
    metrics = {m.column: m.aggregations for m in orders.metrics}
    assert metrics["revenue"] == ["sum", "avg"] and metrics["discount_rate"] == ["avg", "max"]
    assert "customer_id" not in metrics and "order_id" not in metrics
    dimensions = {(d.table, d.column) for d in orders.dimensions}
    assert {(None, "status"), ("customers", "city"), ("products", "category")} <= dimensions
    assert {(j.left, j.right) for j in roles.joins} >= {
        ("orders.customer_id", "customers.customer_id"),
        ("orders.product_id", "products.product_id"),
    }


def test_bis_sample_draft_gives_questions(bis_sample: Path) -> None:
    count = _questions_from_draft(bis_sample / "dataset_2.sqlite3", "dataset_2")
    assert count >= MIN_QUESTIONS


@pytest.mark.slow
@pytest.mark.parametrize("vertical", vertical_names())
def test_vertical_draft_gives_questions(vertical: str, tmp_path: Path) -> None:
    path = tmp_path / f"{vertical}.sqlite"
    generate(vertical_spec(vertical), path, scale=0.02, seed=0)
    assert _questions_from_draft(path, vertical) >= MIN_QUESTIONS


def test_cli_drafts_then_generates_without_roles(tmp_path: Path) -> None:
    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    drafted = biarena("generate", "roles", path, "-o", tmp_path / "roles.yaml")
    assert drafted.returncode == 0, drafted.stderr
    roles = load_roles(tmp_path / "roles.yaml")
    assert roles.database == "shop"
    assert_user_error(biarena("generate", "roles", path, "-o", tmp_path / "roles.yaml"), "exists")
    done = biarena("generate", "templates", path, "-o", tmp_path / "bench", "--per-category", "2")
    assert done.returncode == 0, done.stderr
    assert "roles drafted from the schema" in done.stderr
    assert "wrote" in done.stderr and "en)" in done.stderr


def test_chinese_only_where_the_names_are_translated(tmp_path: Path) -> None:
    from biarena.benchmarks import load_benchmark

    path = write_sqlite(make_shop(orders=300), tmp_path / "shop.sqlite")
    roles = tmp_path / "roles.yaml"
    assert biarena("generate", "roles", path, "-o", roles).returncode == 0
    asked = ("generate", "templates", path, "--roles", roles, "--per-category", "2", "--languages", "en,zh")
    english_only = biarena(*asked, "-o", tmp_path / "en")
    assert english_only.returncode == 0, english_only.stderr
    assert "left out" in english_only.stderr and "no 'zh' translation" in english_only.stderr
    assert {q.language for q in load_benchmark(tmp_path / "en").questions} == {"en"}
    # every metric and dimension named in Chinese too: both languages, by default
    text = roles.read_text(encoding="utf-8")
    for line in text.splitlines():
        if "names: {en: " in line:
            english = line.split("names: {en: ", 1)[1].split("}", 1)[0]
            text = text.replace(f"names: {{en: {english}}}", f"names: {{en: {english}, zh: 中文{english}}}", 1)
    roles.write_text(text, encoding="utf-8")
    both = biarena("generate", "templates", path, "--roles", roles, "--per-category", "2", "-o", tmp_path / "both")
    assert both.returncode == 0, both.stderr
    assert "left out" not in both.stderr
    languages = {q.language for q in load_benchmark(tmp_path / "both").questions}
    assert languages == {"en", "zh"}


CHINOOK = Path(__file__).parent / "fixtures" / "chinook" / "chinook.sqlite"


def _chinook_roles() -> Roles:
    with open_database(CHINOOK) as db:
        return Roles.model_validate(yaml.safe_load(draft_roles(db, "chinook")))


def test_chinook_draft_reads_keys_events_and_names_as_a_person_would() -> None:
    roles = _chinook_roles()
    facts = {f.table: f for f in roles.facts}
    # events first: invoice lines (time through their invoice) and invoices; no bridge, no small reference table
    assert set(list(facts)[:2]) == {"InvoiceLine", "Invoice"}
    assert "PlaylistTrack" not in facts and "Employee" not in facts and "Genre" not in facts
    line, invoice = facts["InvoiceLine"], facts["Invoice"]
    assert line.time is not None and (line.time.table, line.time.column) == ("Invoice", "InvoiceDate")
    assert invoice.time is not None and invoice.time.column == "InvoiceDate" and invoice.time.table is None
    # keys are never measures; rows are counted; price x quantity is sales
    measured = {m.column for f in roles.facts for m in f.metrics if m.column}
    assert not measured & {"CustomerId", "InvoiceId", "TrackId", "AlbumId", "GenreId", "SupportRepId", "ReportsTo"}
    assert [m.names["en"] for m in line.metrics if m.rows] == ["invoice lines"]
    sales = next(m for m in line.metrics if m.expression)
    assert sales.names["en"] == "sales" and "UnitPrice" in sales.expression and "Quantity" in sales.expression
    assert {m.column: m.names["en"] for m in invoice.metrics if m.column} == {"Total": "invoice amount"}
    # dimensions two hops away, named so that none collide; no contact detail among them
    dims = {(d.table or f.table, d.column): d.names["en"] for f in roles.facts for d in f.dimensions}
    assert dims[("Genre", "Name")] == "genre" and dims[("MediaType", "Name")] == "media type"
    assert dims[("Employee", "Title")] == "support rep title"
    assert len(set(dims.values())) == len(dims)
    assert not {c for _, c in dims} & {"Phone", "Fax", "Email", "Address", "PostalCode", "FirstName", "LastName"}
    assert roles.join_path("InvoiceLine", "Genre") is not None


def test_the_draft_says_what_it_left_out_and_why() -> None:
    with open_database(CHINOOK) as db:
        text = draft_roles(db, "chinook")
    assert "BillingAddress (contact or personal detail)" in text
    assert "BirthDate" not in text.split("joins:")[0] or "birth date" in text


def test_audit_and_birth_columns_are_never_the_time(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "staff.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE store (store_id INTEGER PRIMARY KEY, region TEXT, last_update TEXT)")
        conn.execute(
            "CREATE TABLE visit (visit_id INTEGER PRIMARY KEY, store_id INTEGER REFERENCES store(store_id), "
            "visitor_birth_date TEXT, spent REAL, last_update TEXT)"
        )
        stores = [(i, f"r{i % 3}", f"2024-01-0{i % 9 + 1}") for i in range(40)]
        conn.executemany("INSERT INTO store VALUES (?, ?, ?)", stores)
        visits = [
            (i, i % 40, f"19{50 + i % 40}-0{i % 9 + 1}-1{i % 9}", i * 1.5, f"2024-02-{i % 28 + 1:02d}")
            for i in range(300)
        ]
        conn.executemany("INSERT INTO visit VALUES (?, ?, ?, ?, ?)", visits)
    with open_database(path) as db:
        roles = Roles.model_validate(yaml.safe_load(draft_roles(db, "staff")))
    visit = next(f for f in roles.facts if f.table == "visit")
    assert visit.time is None
    assert {m.column for m in visit.metrics if m.column} == {"spent"}


def test_an_empty_or_foreign_file_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    foreign = tmp_path / "notes.db"
    foreign.write_text("not a database at all\n", encoding="utf-8")
    for path, said in ((empty, "is empty"), (foreign, "not an SQLite or DuckDB database")):
        for command in ("roles", "templates"):
            assert_user_error(biarena("generate", command, path, "-o", tmp_path / command), said)
    assert not (tmp_path / "roles").exists() and not (tmp_path / "templates").exists()


def test_every_last_n_days_window_is_n_calendar_days(tmp_path: Path) -> None:
    import re
    from datetime import datetime, timedelta

    path = write_sqlite(make_shop(orders=600), tmp_path / "shop.sqlite")
    with open_database(path) as db:
        roles = Roles.model_validate(yaml.safe_load(draft_roles(db, "shop")))
        anchor = latest_time(db, roles)
        made = generate_question_set(db, roles, languages=("en",), per_category=40, seed=1, now=anchor)
    assert anchor is not None
    checked = 0
    for question in made.questions:
        found = re.search(r"(?:in|over) the last (\d+) days", question.text)
        if not found:
            continue
        days = int(found.group(1))
        start = datetime.combine(anchor.date() - timedelta(days=days - 1), datetime.min.time())
        assert f"'{start:%Y-%m-%d %H:%M:%S}'" in question.gold_sql[0], (question.text, question.gold_sql[0])
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize(
    ("expression", "said"),
    [
        ("(SELECT 1)", "is not an SQL expression"),
        ("UnitPrice; DROP TABLE Track", "is not an SQL expression"),
        ("UnitPrice * (SELECT max(Total) FROM Invoice)", "not a query"),
        ("Secret * 2", "has no column 'Secret'"),
    ],
)
def test_a_metric_expression_is_one_expression_of_the_fact(expression: str, said: str, tmp_path: Path) -> None:
    roles = tmp_path / "roles.yaml"
    roles.write_text(
        "database: chinook\nfacts:\n  - table: InvoiceLine\n    metrics:\n"
        f"      - {{expression: {json.dumps(expression)}, names: {{en: x}}}}\n",
        encoding="utf-8",
    )
    done = biarena("generate", "templates", CHINOOK, "--roles", roles, "-o", tmp_path / "bench")
    assert_user_error(done, said)
    assert done.stderr.count(str(roles)) == 1 and not (tmp_path / "bench").exists()
