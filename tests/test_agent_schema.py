"""The schema an agent is shown: tables that explain codes are found by their content, not by their name."""

import sqlite3
from pathlib import Path

import pytest

from biarena.db import describe_schema, open_database
from biarena.db.cells import cell_text
from biarena.synth import generate, vertical_spec


def shown_whole(schema: str) -> set[str]:
    return {line[3 : -len(": meanings of codes")] for line in schema.splitlines() if line.endswith("meanings of codes")}


@pytest.mark.parametrize(
    ("vertical", "business", "codes"),
    [
        ("food_delivery", {"promo_code", "orders", "market_event"}, {"cuisine", "payment_method", "vehicle_type"}),
        ("clothing_ecommerce", {"promo_code", "loyalty_tier", "orders"}, {"department", "fit_type", "carrier"}),
        ("ecommerce_enablement", {"discount_code", "plan", "integration_launch"}, set()),
    ],
)
def test_corgi_verticals(vertical: str, business: set[str], codes: set[str], tmp_path: Path) -> None:
    path = tmp_path / f"{vertical}.db"
    generate(vertical_spec(vertical), path, scale=0.02, seed=0)
    with open_database(path) as db:
        schema = describe_schema(db, sample_rows=2)
    whole = shown_whole(schema)
    assert codes <= whole and not business & whole
    for table in business:
        assert f"/* {table}: 2 sample rows" in schema


def test_code_tables_by_content(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE order_state (state TEXT, label TEXT);
        INSERT INTO order_state VALUES ('N', 'new'), ('S', 'shipped'), ('R', 'returned by the customer');
        CREATE TABLE terms (category TEXT, code TEXT, meaning TEXT, meaning_zh TEXT);
        INSERT INTO terms VALUES ('metric', 'CTR', 'click-through rate: clicks / impressions', '点击率'),
                                 ('metric', 'CVR', 'conversion rate: conversions / clicks', '转化率');
        CREATE TABLE status_mapping (status TEXT, amount REAL);
        INSERT INTO status_mapping VALUES ('open', 10.5), ('closed', 3.25);
        CREATE TABLE launch (launch_id INTEGER, launched_on TEXT, note TEXT);
        INSERT INTO launch VALUES (1, '2024-01-02', 'routine update'), (2, '2024-03-04', 'new partner channel');
        CREATE TABLE city (city_id INTEGER, name TEXT, population INTEGER);
        INSERT INTO city VALUES (1, 'Dublin', 592000), (2, 'Paris', 2100000);
        CREATE TABLE page (slug TEXT, body TEXT);
        """
    )
    long_text = "word " * 100
    conn.executemany("INSERT INTO page VALUES (?, ?)", [("a", long_text), ("b", long_text)])
    conn.commit()
    conn.close()
    with open_database(path) as db:
        schema = describe_schema(db, sample_rows=1)
    assert shown_whole(schema) == {"order_state", "terms"}
    # a code table is shown whole, its meanings uncut
    assert (
        "R | returned by the customer" in schema and "CTR | click-through rate: clicks / impressions | 点击率" in schema
    )
    assert "/* status_mapping: 1 sample row\n" in schema and "/* launch: 1 sample row\n" in schema
    # a code table with more rows than are shown whole is a business table
    with open_database(path) as db:
        assert "order_state" not in shown_whole(describe_schema(db, metadata_rows=2))


def test_sample_numbers_keep_their_digits(tmp_path: Path) -> None:
    path = tmp_path / "n.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (revenue REAL)")
    conn.execute("INSERT INTO t VALUES (1234567.891)")
    conn.commit()
    conn.close()
    with open_database(path) as db:
        assert "1234567.891" in describe_schema(db)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1234567.891, "1234567.891"),
        (0.1 + 0.2, "0.3"),
        (2.0, "2"),
        (-0.0, "0"),
        (1 / 3, "0.33333333333333"),
        (782.520000000001, "782.52"),
        (123456789012.34, "123456789012.34"),
        (1e15, "1000000000000000"),
        (2.5e-7, "2.5e-07"),
        (1.5e20, "1.5e+20"),
        (float("nan"), "nan"),
        (None, "NULL"),
        (12, "12"),
    ],
)
def test_cell_text(value: object, text: str) -> None:
    assert cell_text(value) == text
