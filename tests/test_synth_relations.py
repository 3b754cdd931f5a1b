"""Consistency through keys: time order and lags, inherited values, parent conditions, key matches, ranges."""

import sqlite3
from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.synth import Spec, generate, verify
from tests.test_cli import biarena

SPEC = """
name: shop
title: A small shop
description: Customers in cities order from stores; delivered orders get shipments and reviews.
start: 2023-01-01
anchor: 2024-07-01 00:00:00
seasonality: {months: {12: 1.3}}
tables:
  city:
    rows: 4
    scaled: false
    primary_key: city_id
    columns: {city_id: {kind: sequence}, name: {kind: category, values: [Oslo, Lima, Pune, Kyiv]}}
  store:
    rows: 40
    scaled: false
    primary_key: store_id
    columns:
      store_id: {kind: sequence}
      city_id: {kind: foreign, ref: city.city_id}
      opened_on: {kind: date, start: 2020-01-01, end: 2023-06-01}
      daily_rate: {kind: uniform, low: 50, high: 200, round: 2}
  customer:
    rows: 500
    primary_key: customer_id
    columns:
      customer_id: {kind: sequence}
      city_id: {kind: foreign, ref: city.city_id}
      tier: {kind: category, values: {trial: 0.3, regular: 0.5, vip: 0.2}}
      tenure_months:
        kind: uniform
        round: 0
        ranges: {column: tier, values: {trial: [0, 3], regular: [4, 35], vip: [36, 120]}}
  orders:
    rows: 3000
    primary_key: order_id
    columns:
      order_id: {kind: sequence}
      customer_id: {kind: foreign, ref: customer.customer_id}
      store_id:
        kind: foreign
        ref: store.store_id
        follows: opened_on
        match: {column: city_id, via: customer_id, share: 0.85}
      store_city_id: {kind: inherit, via: store_id, of: city_id}
      rate: {kind: inherit, via: store_id, of: daily_rate}
      days: {kind: poisson, mean: 3, min: 1, max: 6, round: 0}
      total: {kind: constant, value: 0.0}
      status: {kind: category, values: {delivered: 0.9, cancelled: 0.1}}
      channel: {kind: category, values: {web: 0.6, app: 0.4}}
      placed_at: {kind: timestamp}
  shipment:
    rows: 2500
    primary_key: shipment_id
    columns:
      shipment_id: {kind: sequence}
      order_id: {kind: foreign, ref: orders.order_id, where: "status = 'delivered'"}
      shipped_at: {kind: after, via: order_id, of: placed_at, low: 1, high: 48, mean: 6}
  review:
    # enough reviews that the propagated event's window can be told from chance at the verifier's false-alarm rate
    rows: 6000
    primary_key: review_id
    columns:
      review_id: {kind: sequence}
      store_id: {kind: foreign, ref: store.store_id, follows: opened_on, low: 24}
      stars: {kind: category, values: [1, 2, 3, 4, 5]}
      posted_at: {kind: timestamp}
  news:
    rows: 3
    scaled: false
    primary_key: news_id
    columns:
      news_id: {kind: sequence}
      headline: {kind: category, values: [new logo, opening hours changed, loyalty card]}
      published_on: {kind: date, start: 2023-01-01, end: 2024-06-30}
planted:
  - name: app_push_spike
    table: orders
    column: channel
    value: app
    start: 2024-03-04
    end: 2024-03-31
    factor: 2.5
    propagate: [review]
    cause: {table: news, row: {headline: push notifications launched, published_on: "2024-03-01"}}
    explanation: App orders rose about two and a half times in March 2024 after push notifications launched.
  - name: web_redesign_shift
    kind: shift
    table: orders
    column: channel
    value: web
    start: 2023-10-02
    end: 2023-10-29
    factor: 1.4
    cause: {table: news, row: {headline: website redesigned, published_on: "2023-10-01"}}
    explanation: The web's share of orders rose in October 2023 after the website was redesigned.
rules:
  - {name: total_is_rate_times_days, table: orders, column: total, when: "1 = 1", then: {expr: "rate * days", round: 2}}
"""


@pytest.fixture
def spec(tmp_path: Path) -> Spec:
    import yaml

    return Spec.model_validate(yaml.safe_load(SPEC))


@pytest.fixture
def shop(spec: Spec, tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    generate(spec, path, scale=1.0, seed=4, chunk=700)
    (tmp_path / "shop.yaml").write_text(SPEC, encoding="utf-8")
    return path


def kinds(path: Path) -> dict[str, list]:
    out: dict[str, list] = {}
    for check in verify(path):
        out.setdefault(check.kind, []).append(check)
    return out


def test_every_relation_holds_on_the_written_data(shop: Path) -> None:
    checks = kinds(shop)
    for kind in ("timestamp order", "inherited", "parent condition", "key match", "range", "bounds", "planted event"):
        assert checks[kind] and all(c.ok for c in checks[kind]), (kind, checks[kind])
    assert [c for group in checks.values() for c in group if not c.ok] == []
    conn = sqlite3.connect(shop)
    late = "SELECT count(*) FROM shipment s JOIN orders o USING (order_id) WHERE s.shipped_at < o.placed_at"
    assert conn.execute(late).fetchone()[0] == 0
    cancelled = "SELECT count(*) FROM shipment s JOIN orders o USING (order_id) WHERE o.status = 'cancelled'"
    assert conn.execute(cancelled).fetchone()[0] == 0
    early = "SELECT count(*) FROM review r JOIN store s USING (store_id) WHERE r.posted_at < s.opened_on"
    assert conn.execute(early).fetchone()[0] == 0
    same_city = conn.execute(
        "SELECT avg(s.city_id = c.city_id) FROM orders o JOIN store s USING (store_id) "
        "JOIN customer c USING (customer_id)"
    ).fetchone()[0]
    assert 0.82 <= same_city <= 0.95  # 85% matched on purpose, a few more by chance
    tenure = dict(conn.execute("SELECT tier, avg(tenure_months) FROM customer GROUP BY tier").fetchall())
    assert tenure["trial"] < 4 < tenure["regular"] < 36 < tenure["vip"]
    assert conn.execute("SELECT min(days), max(days) FROM orders").fetchone() == (1, 6)  # poisson(3), bounded
    ids = [r[0] for r in conn.execute("SELECT order_id FROM orders ORDER BY placed_at, order_id")]
    assert ids == list(range(1, len(ids) + 1))


@pytest.mark.parametrize(
    ("tamper", "failure"),
    [
        (
            "UPDATE shipment SET shipped_at = '2023-01-01 00:00:00' WHERE shipment_id = 5",
            "FAILED timestamp order 'shipment.shipped_at after orders.placed_at'",
        ),
        (
            "UPDATE review SET posted_at = '2019-06-01 00:00:00' WHERE review_id = 9",
            "FAILED timestamp order 'review.posted_at after store.opened_on'",
        ),
        (
            "UPDATE orders SET store_city_id = store_city_id % 4 + 1 WHERE order_id = 3",
            "FAILED inherited 'orders.store_city_id",
        ),
        (
            "UPDATE orders SET status = 'cancelled' WHERE order_id IN (SELECT order_id FROM shipment LIMIT 1)",
            "FAILED parent condition 'shipment.order_id: status = 'delivered''",
        ),
        (
            "UPDATE orders SET store_id = (SELECT min(store_id) FROM store WHERE opened_on < '2021-01-01')",
            "FAILED key match 'orders: store_id.city_id = customer_id.city_id'",
        ),
        (
            "DELETE FROM review WHERE posted_at BETWEEN '2024-03-04' AND '2024-03-31 23:59:59' AND review_id % 3 = 0",
            "FAILED propagated event 'app_push_spike -> review'",
        ),
        (
            "UPDATE orders SET channel = 'app' WHERE placed_at BETWEEN '2023-10-02' AND '2023-10-29 23:59:59'",
            "FAILED planted event 'web_redesign_shift'",
        ),
        (
            "UPDATE customer SET tenure_months = 50 WHERE tier = 'trial'",
            "FAILED range 'customer.tenure_months for tier = trial'",
        ),
        ("UPDATE orders SET days = 9 WHERE order_id = 2", "FAILED bounds 'orders.days >= 1 and <= 6'"),
    ],
)
def test_verify_catches_each_broken_relation(shop: Path, tamper: str, failure: str) -> None:
    conn = sqlite3.connect(shop)
    with conn:
        conn.execute(tamper)
    conn.close()
    result = biarena("synth", "verify", shop)
    assert result.returncode == 1, result.stdout
    assert failure in result.stderr


def test_relations_hold_on_duckdb_and_parquet(spec: Spec, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    for path, fmt in ((tmp_path / "s.duckdb", "duckdb"), (tmp_path / "s_parquet", "parquet")):
        generate(spec, path, scale=0.5, seed=2, fmt=fmt)
        checks = verify(path)
        assert {"timestamp order", "inherited", "parent condition", "key match", "range"} <= {c.kind for c in checks}
        assert [c for c in checks if not c.ok] == []


def test_same_seed_same_bytes_with_relations(spec: Spec, tmp_path: Path) -> None:
    generate(spec, tmp_path / "a.db", scale=0.5, seed=1)
    generate(spec, tmp_path / "b.db", scale=0.5, seed=1)
    assert (tmp_path / "a.db").read_bytes() == (tmp_path / "b.db").read_bytes()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("of: placed_at, low: 1", "via"),
        ("where: \"status = 'delivered'\"", "no parent satisfies"),
        ("min: 1, max: 6", "min 7 is above max 6"),
        ("tier: {kind: category, values:", "min and max bound a normal, uniform or poisson column"),
    ],
)
def test_bad_relations_are_user_errors(edit: str, message: str, tmp_path: Path) -> None:
    import yaml

    text = SPEC
    if message.startswith("min 7"):
        text = text.replace(edit, "min: 7, max: 6")
    elif message.startswith("min and max"):
        text = text.replace(edit, "tier: {kind: category, max: 3, values:")
    elif message == "via":
        text = text.replace("via: order_id, of: placed_at, low: 1", "via: shipment_id, of: placed_at, low: 1")
    else:
        text = text.replace(edit, "where: \"status = 'lost'\"")
    with pytest.raises((FormatError, ValueError), match=message):
        generate(Spec.model_validate(yaml.safe_load(text)), tmp_path / "x.db", scale=0.2)


BUSINESS_RELATIONS = {
    "food_delivery": [
        ("key match", "orders: restaurant_id.city_id = customer_id.city_id"),
        ("parent condition", "delivery.order_id: status IN ('delivered', 'refunded')"),
        ("timestamp order", "delivery.picked_up_at after orders.placed_at"),
    ],
    "home_rental": [
        ("inherited", "booking.market = listing.market"),
        ("inherited", "booking.nightly_price = listing.nightly_price"),
    ],
    "car_rental": [("inherited", "trip.vehicle_class = vehicle_class.name")],
    "luxury_consignment": [
        ("parent condition", "listing.item_id: authentication_result = 'authentic'"),
        ("timestamp order", "sale.sold_at after listing.listed_at"),
    ],
    "personalized_product": [("range", "customer.signup_date for segment = trial")],
}


@pytest.mark.parametrize("name", sorted(BUSINESS_RELATIONS))
def test_built_in_verticals_declare_and_keep_their_relations(name: str, tmp_path: Path) -> None:
    from biarena.synth import vertical_spec

    path = tmp_path / f"{name}.db"
    generate(vertical_spec(name), path, scale=0.05, seed=0)
    checks = {(c.kind, c.name): c for c in verify(path)}
    for key in BUSINESS_RELATIONS[name]:
        assert key in checks and checks[key].ok, (key, checks.get(key))
    assert sum(kind == "timestamp order" for kind, _ in checks) >= 3


def test_planted_events_shift_the_mix_and_carry_into_dependent_tables(shop: Path) -> None:
    conn = sqlite3.connect(shop)

    def share(first: str, last: str) -> float:
        sql = "SELECT avg(channel = 'web') FROM orders WHERE substr(placed_at, 1, 10) BETWEEN ? AND ?"
        return conn.execute(sql, (first, last)).fetchone()[0]

    assert share("2023-10-02", "2023-10-29") > 1.25 * share("2023-09-01", "2023-09-28")
    total = "SELECT count(*) FROM orders WHERE substr(placed_at, 1, 7) = ?"
    assert conn.execute(total, ("2023-10",)).fetchone()[0] < 1.2 * conn.execute(total, ("2023-09",)).fetchone()[0]
    reviews = "SELECT count(*) FROM review WHERE substr(posted_at, 1, 10) BETWEEN ? AND ?"
    during = conn.execute(reviews, ("2024-03-04", "2024-03-31")).fetchone()[0]
    before = conn.execute(reviews, ("2024-02-05", "2024-03-03")).fetchone()[0]
    assert during > 1.3 * before  # app orders x2.5 on a 40% slice: the whole table x1.6, and its reviews with it
    checks = {c.name: c for c in verify(shop)}
    assert checks["app_push_spike -> review"].ok and checks["web_redesign_shift"].ok


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "kind: shift\n    table: orders\n    column: channel",
            "kind: shift\n    table: orders\n    column: days",
            "category",
        ),
        ("propagate: [review]", "propagate: [city]", "timed tables"),
    ],
)
def test_bad_planted_events_are_refused(old: str, new: str, message: str) -> None:
    import yaml

    assert old in SPEC
    with pytest.raises(ValueError, match=message):
        Spec.model_validate(yaml.safe_load(SPEC.replace(old, new)))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("  city:\n", '  "city \\"x\\"":\n'),
        ("  city:\n", "  a.b:\n"),
        ("name: {kind: category", "9th: {kind: category"),
    ],
)
def test_a_table_or_column_that_is_no_name_is_refused(old: str, new: str) -> None:
    import yaml

    assert old in SPEC
    with pytest.raises(ValueError, match="is no name"):
        Spec.model_validate(yaml.safe_load(SPEC.replace(old, new, 1)))
