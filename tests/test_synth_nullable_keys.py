"""Optional (nullable) foreign keys: empty for a share of rows or where a condition on the row holds, composed
with `follows`, `where`, `match`, `weight` and `inherit`, and verified on the written data."""

import sqlite3
from pathlib import Path

import pytest
import yaml

from biarena.synth import Spec, generate, verify
from tests.test_cli import assert_user_error, biarena

SPEC = """
name: deals
title: A small shop with promotions
description: Customers order from stores; some orders apply a store promotion, some a coupon; reviews follow orders.
start: 2023-01-01
anchor: 2024-07-01 00:00:00
seasonality: {months: {12: 1.3}}
tables:
  city:
    rows: 3
    scaled: false
    primary_key: city_id
    columns: {city_id: {kind: sequence}, name: {kind: category, values: [Oslo, Lima, Pune]}}
  store:
    rows: 6
    scaled: false
    primary_key: store_id
    columns: {store_id: {kind: sequence}, city_id: {kind: foreign, ref: city.city_id}}
  promotion:
    rows: 40
    scaled: false
    primary_key: promotion_id
    columns:
      promotion_id: {kind: sequence}
      store_id: {kind: foreign, ref: store.store_id}
      kind: {kind: category, values: {percent_off: 0.6, free_shipping: 0.4}}
      approved: {kind: category, values: {1: 0.9, 0: 0.1}}
      starts_on: {kind: date, start: 2022-01-01, end: 2023-06-01}
  coupon:
    rows: 20
    scaled: false
    primary_key: coupon_id
    columns:
      coupon_id: {kind: sequence}
      percent_off: {kind: category, values: {5: 0.5, 10: 0.3, 15: 0.2}}
  orders:
    rows: 4000
    primary_key: order_id
    columns:
      order_id: {kind: sequence}
      store_id: {kind: foreign, ref: store.store_id}
      promo_flag: {kind: category, values: {1: 0.3, 0: 0.7}}
      promotion_id:
        kind: foreign
        ref: promotion.promotion_id
        empty: "promo_flag = 0"
        follows: starts_on
        where: "approved = 1"
        match: {column: store_id, via: store_id, share: 0.9}
      promo_kind: {kind: inherit, via: promotion_id, of: kind}
      coupon_id:
        kind: foreign
        ref: coupon.coupon_id
        empty: 0.7
        weight: {column: percent_off, values: {5: 3, 10: 2, 15: 1}}
      coupon_pct: {kind: inherit, via: coupon_id, of: percent_off}
      subtotal: {kind: normal, mean: 40, sd: 10, min: 5, round: 2}
      discount: {kind: constant, value: 0.0}
      channel: {kind: category, values: {web: 0.6, app: 0.4}}
      placed_at: {kind: timestamp}
  review:
    rows: 1500
    primary_key: review_id
    columns:
      review_id: {kind: sequence}
      order_id: {kind: foreign, ref: orders.order_id}
      promotion_kind: {kind: inherit, via: order_id, of: promotion_id.kind}
      store_id: {kind: foreign, ref: store.store_id, empty: 0.5}
      stars: {kind: category, values: [1, 2, 3, 4, 5]}
  news:
    rows: 2
    scaled: false
    primary_key: news_id
    columns:
      news_id: {kind: sequence}
      headline: {kind: category, values: [new logo, loyalty card]}
      published_on: {kind: date, start: 2023-01-01, end: 2024-06-30}
rules:
  - name: promotions_and_coupons_discount
    table: orders
    column: discount
    cases:
      - {when: "promo_kind = 'percent_off'", then: {expr: "subtotal * 0.1", round: 2}}
      - {when: "coupon_id IS NOT NULL", then: {expr: "subtotal * coupon_pct / 100", round: 2}}
    otherwise: 0
planted:
  - name: app_push_spike
    table: orders
    column: channel
    value: app
    start: 2024-03-04
    end: 2024-03-31
    factor: 2.0
    cause: {table: news, row: {headline: push notifications launched, published_on: "2024-03-01"}}
    explanation: App orders doubled in March 2024 after push notifications launched.
"""


def spec_of(text: str = SPEC) -> Spec:
    return Spec.model_validate(yaml.safe_load(text))


@pytest.fixture
def deals(tmp_path: Path) -> Path:
    path = tmp_path / "deals.db"
    generate(spec_of(), path, scale=1.0, seed=4, chunk=700)
    return path


def one(conn: sqlite3.Connection, sql: str) -> float:
    return conn.execute(sql).fetchone()[0]


def test_optional_keys_are_empty_where_planned_and_point_to_valid_parents(deals: Path) -> None:
    checks = verify(deals)
    assert [c for c in checks if not c.ok] == []
    optional = {c.name for c in checks if c.kind == "optional key"}
    assert optional == {
        "orders.promotion_id empty where promo_flag = 0",
        "orders.coupon_id empty in 70% of rows",
        "review.store_id empty in 50% of rows",
    }
    conn = sqlite3.connect(deals)
    # empty exactly where the row has no promotion flag
    assert one(conn, "SELECT count(*) FROM orders WHERE (promo_flag = 0) <> (promotion_id IS NULL)") == 0
    assert one(conn, "SELECT count(*) FROM orders WHERE promotion_id IS NOT NULL") > 1000
    # the share is drawn exactly; only the planted spike's copies move it
    assert abs(one(conn, "SELECT avg(coupon_id IS NULL) FROM orders") - 0.7) < 0.01
    assert one(conn, "SELECT sum(store_id IS NULL) FROM review") == 750
    # every filled key honours follows, where, match and weight
    key = "FROM orders o JOIN promotion p USING (promotion_id)"
    assert one(conn, f"SELECT count(*) {key} WHERE p.approved = 0 OR o.placed_at < p.starts_on") == 0
    assert 0.88 <= one(conn, f"SELECT avg(o.store_id = p.store_id) {key}") <= 0.97
    used = dict(conn.execute("SELECT c.percent_off, count(*) FROM orders JOIN coupon c USING (coupon_id) GROUP BY 1"))
    assert used[5] > used[15]
    orphans = (
        "SELECT count(*) FROM orders WHERE coupon_id IS NOT NULL AND coupon_id NOT IN (SELECT coupon_id FROM coupon)"
    )
    assert one(conn, orphans) == 0
    # values read through an optional key are empty with it, also two keys away
    assert one(conn, "SELECT count(*) FROM orders WHERE (promo_kind IS NULL) <> (promotion_id IS NULL)") == 0
    assert one(conn, "SELECT count(*) FROM orders WHERE (coupon_pct IS NULL) <> (coupon_id IS NULL)") == 0
    through = "SELECT count(*) FROM review r JOIN orders o USING (order_id) WHERE "
    assert one(conn, through + "(r.promotion_kind IS NULL) <> (o.promotion_id IS NULL)") == 0
    assert one(conn, through + "r.promotion_kind IS NOT NULL") > 0
    # a rule reads the optional key and what comes through it
    assert one(conn, "SELECT count(*) FROM orders WHERE discount > 0") == one(
        conn, "SELECT count(*) FROM orders WHERE promo_kind = 'percent_off' OR coupon_id IS NOT NULL"
    )
    # rows without a parent stay where they were drawn: the table is still in time order
    ids = [r[0] for r in conn.execute("SELECT order_id FROM orders ORDER BY placed_at, order_id")]
    assert ids == list(range(1, len(ids) + 1))


def test_an_exact_share_without_planted_events(tmp_path: Path) -> None:
    data = yaml.safe_load(SPEC)
    data["planted"] = []
    generate(Spec.model_validate(data), tmp_path / "d.db", scale=0.9, seed=2, chunk=333)
    conn = sqlite3.connect(tmp_path / "d.db")
    n, empty = conn.execute("SELECT count(*), sum(coupon_id IS NULL) FROM orders").fetchone()
    assert n == 3600 and empty == 2520


def test_a_share_of_none_fills_every_row(tmp_path: Path) -> None:
    generate(spec_of(SPEC.replace("empty: 0.7", "empty: 0")), tmp_path / "d.db", scale=0.2, seed=5, chunk=300)
    assert [c for c in verify(tmp_path / "d.db") if not c.ok] == []
    conn = sqlite3.connect(tmp_path / "d.db")
    assert one(conn, "SELECT count(*) FROM orders WHERE coupon_id IS NULL OR coupon_pct IS NULL") == 0


@pytest.mark.parametrize(
    ("tamper", "failure"),
    [
        (
            "UPDATE orders SET promotion_id = NULL, promo_kind = NULL WHERE order_id = "
            "(SELECT min(order_id) FROM orders WHERE promo_flag = 1)",
            "FAILED optional key 'orders.promotion_id empty where promo_flag = 0'",
        ),
        (
            "UPDATE orders SET promotion_id = 1 WHERE order_id = "
            "(SELECT min(order_id) FROM orders WHERE promo_flag = 0)",
            "FAILED optional key 'orders.promotion_id empty where promo_flag = 0'",
        ),
        (
            "UPDATE orders SET coupon_id = NULL, coupon_pct = NULL WHERE order_id % 5 = 0",
            "FAILED optional key 'orders.coupon_id empty in 70% of rows'",
        ),
        (
            "UPDATE orders SET coupon_id = 99 WHERE order_id = (SELECT min(order_id) FROM orders WHERE coupon_id > 0)",
            "FAILED foreign key 'orders.coupon_id -> coupon.coupon_id'",
        ),
        (
            "UPDATE orders SET promo_kind = 'percent_off' WHERE order_id = "
            "(SELECT min(order_id) FROM orders WHERE promotion_id IS NULL)",
            "FAILED inherited 'orders.promo_kind = promotion.kind'",
        ),
        (
            "UPDATE review SET promotion_kind = 'free_shipping' WHERE review_id = (SELECT min(review_id) FROM review "
            "JOIN orders USING (order_id) WHERE promotion_id IS NULL)",
            "FAILED inherited 'review.promotion_kind = promotion.kind'",
        ),
        (
            "UPDATE orders SET promotion_id = (SELECT min(promotion_id) FROM promotion WHERE approved = 0) "
            "WHERE order_id = (SELECT min(order_id) FROM orders WHERE promo_flag = 1)",
            "FAILED parent condition 'orders.promotion_id: approved = 1'",
        ),
    ],
)
def test_verify_catches_each_broken_optional_key(deals: Path, tamper: str, failure: str) -> None:
    conn = sqlite3.connect(deals)
    with conn:
        assert conn.execute(tamper).rowcount > 0
    conn.close()
    result = biarena("synth", "verify", deals)
    assert result.returncode == 1, result.stdout
    assert failure in result.stderr


def test_optional_keys_verify_on_duckdb_and_parquet_with_the_same_rows(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    spec = spec_of()
    generate(spec, tmp_path / "d.db", scale=0.5, seed=3)
    query = "SELECT order_id, promotion_id, promo_kind, coupon_id, coupon_pct, discount FROM orders ORDER BY 1"
    expected = sqlite3.connect(tmp_path / "d.db").execute(query).fetchall()
    assert any(row[1] is None for row in expected) and any(row[1] is not None for row in expected)
    for path, fmt in ((tmp_path / "d.duckdb", "duckdb"), (tmp_path / "d_parquet", "parquet")):
        generate(spec, path, scale=0.5, seed=3, fmt=fmt)
        checks = verify(path)
        assert sum(c.kind == "optional key" for c in checks) == 3
        assert [c for c in checks if not c.ok] == []
    conn = duckdb.connect(str(tmp_path / "d.duckdb"), read_only=True)
    assert conn.execute(query).fetchall() == expected
    parquet = duckdb.connect()
    parquet.execute(f"CREATE VIEW orders AS SELECT * FROM read_parquet('{tmp_path / 'd_parquet' / 'orders.parquet'}')")
    assert parquet.execute(query).fetchall() == expected


def test_duckdb_and_parquet_verify_catch_broken_optional_keys(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    spec = spec_of()
    path = tmp_path / "d.duckdb"
    generate(spec, path, scale=0.5, seed=3)
    conn = duckdb.connect(str(path))  # orders is referenced by review, which DuckDB will not let an UPDATE break
    conn.execute(
        "UPDATE review SET promotion_kind = 'free_shipping' WHERE order_id IN "
        "(SELECT order_id FROM orders WHERE promotion_id IS NULL)"
    )
    conn.close()
    assert {c.name for c in verify(path) if not c.ok} == {"review.promotion_kind = promotion.kind"}
    folder = tmp_path / "d_parquet"
    generate(spec, folder, scale=0.5, seed=3, fmt="parquet")
    orders, edited = folder / "orders.parquet", tmp_path / "orders.parquet"
    duckdb.connect().execute(
        "COPY (SELECT * REPLACE (CASE WHEN promo_flag = 0 AND order_id <= 30 THEN 2 ELSE promotion_id END "
        f"AS promotion_id, CASE WHEN order_id % 4 = 0 THEN NULL ELSE coupon_id END AS coupon_id) "
        f"FROM read_parquet('{orders}')) TO '{edited}' (FORMAT parquet)"
    )
    edited.replace(orders)
    failed = {c.name for c in verify(folder) if not c.ok}
    assert {"orders.promotion_id empty where promo_flag = 0", "orders.coupon_id empty in 70% of rows"} <= failed


def test_same_seed_same_bytes_with_optional_keys(tmp_path: Path) -> None:
    spec = spec_of()
    for name, seed in (("a.db", 1), ("b.db", 1), ("c.db", 2)):
        generate(spec, tmp_path / name, scale=0.5, seed=seed)
    assert (tmp_path / "a.db").read_bytes() == (tmp_path / "b.db").read_bytes()
    assert (tmp_path / "a.db").read_bytes() != (tmp_path / "c.db").read_bytes()


def test_the_stored_spec_names_empty_only_where_a_key_is_optional(tmp_path: Path) -> None:
    data = yaml.safe_load(SPEC)
    generate(Spec.model_validate(data), tmp_path / "with.db", scale=0.1, seed=0)
    for column in ("promotion_id", "coupon_id"):
        del data["tables"]["orders"]["columns"][column]["empty"]
    for column in ("promo_kind", "coupon_pct"):
        del data["tables"]["orders"]["columns"][column]
    data["tables"]["review"]["columns"].pop("promotion_kind")
    data["tables"]["review"]["columns"].pop("store_id")
    data["rules"] = []
    generate(Spec.model_validate(data), tmp_path / "without.db", scale=0.1, seed=0)

    def stored(path: Path) -> str:
        return sqlite3.connect(path).execute("SELECT value FROM _biarena_synth WHERE key = 'spec'").fetchone()[0]

    assert stored(tmp_path / "with.db").count("empty:") == 3
    assert "empty" not in stored(tmp_path / "without.db")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "promo_flag: {kind: category, values: {1: 0.3, 0: 0.7}}",
            "promo_flag: {kind: category, values: {1: 0.3, 0: 0.7}, empty: 0.5}",
            "column promo_flag: 'empty' belongs to a foreign column",
        ),
        ("empty: 0.7", "empty: 1.5", "column coupon_id: empty is a share from 0 to below 1"),
        ('empty: "promo_flag = 0"', 'empty: "promo_flag = = 0"', "column promotion_id: empty: cannot parse"),
        ('empty: "promo_flag = 0"', 'empty: "1 = 1"', "reads no column of the row"),
        ('empty: "promo_flag = 0"', 'empty: "flag = 0"', "reads 'flag', not a column of this table"),
        ('empty: "promo_flag = 0"', 'empty: "coupon_pct = 5"', "may read only drawn columns"),
        ('empty: "promo_flag = 0"', 'empty: "placed_at IS NULL"', "not 'placed_at' (timestamp)"),
        (
            'empty: "promo_flag = 0"',
            'empty: "discount = 0"',
            "reads 'discount', which rule 'promotions_and_coupons_discount' changes after keys are drawn",
        ),
        (
            'empty: "promo_flag = 0"',
            "empty: \"channel = 'web'\"",
            "reads 'channel', which planted event 'app_push_spike' changes after keys are drawn",
        ),
        (
            "      stars: {kind: category",
            "      coupon: {kind: foreign, ref: orders.coupon_id}\n      stars: {kind: category",
            "orders.coupon_id may be empty, so it is no key to refer to",
        ),
    ],
)
def test_combinations_that_make_no_sense_are_one_line_errors(old: str, new: str, message: str, tmp_path: Path) -> None:
    text = SPEC
    if "channel = 'web'" in new:
        text = text.replace("    factor: 2.0\n", "    kind: shift\n    factor: 2.0\n")
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = biarena("synth", "make", path, "--scale", "0.1", "-o", tmp_path / "bad.db")
    assert_user_error(result, message)
    assert not (tmp_path / "bad.db").exists()


def test_food_delivery_orders_reference_the_promotion_they_applied(tmp_path: Path) -> None:
    from biarena.synth import vertical_spec

    path = tmp_path / "food.db"
    generate(vertical_spec("food_delivery"), path, scale=0.05, seed=0)
    checks = {(c.kind, c.name): c for c in verify(path)}
    for key in (
        ("optional key", "orders.promotion_id empty where promo_applied = 0"),
        ("key match", "orders: promotion_id.city_id = restaurant_id.city_id"),
        ("timestamp order", "orders.placed_at after promotion.starts_on"),
        ("rule", "promotion_takes_15_percent"),
        ("key match", "delivery: driver_id.city_id = order_id.city_id"),
        ("range", "driver.weekly_hours_available for account_status = offboarded"),
    ):
        assert key in checks and checks[key].ok, (key, checks.get(key))
    assert [c for c in checks.values() if not c.ok] == []
    conn = sqlite3.connect(path)
    linked = (
        "FROM orders o JOIN promotion p USING (promotion_id) JOIN restaurant r ON o.restaurant_id = r.restaurant_id"
    )
    assert one(conn, f"SELECT count(*) {linked}") > 100
    assert one(conn, f"SELECT count(*) {linked} WHERE p.city_id <> r.city_id OR o.placed_at < p.starts_on") == 0
    assert one(conn, "SELECT count(*) FROM orders WHERE (discount > 0) <> (promotion_id IS NOT NULL)") == 0
    assert one(conn, "SELECT count(*) FROM orders WHERE (promo_applied = 1) <> (promotion_id IS NOT NULL)") == 0
    assert one(conn, "SELECT max(weekly_hours_available) FROM driver WHERE account_status <> 'active'") == 0
