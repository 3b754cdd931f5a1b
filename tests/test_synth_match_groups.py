"""A key's `match` with thousands of groups (a product of the order's own shop, among 2,000 shops): every row
agrees, time order and weights hold within each group, and text values group as numbers do."""

import sqlite3
from pathlib import Path

import yaml

from biarena.synth import Spec, generate, verify

SPEC = """
name: shops
title: Shops with many products
description: Orders buy a product of their own shop, featured products four times as often; couriers serve a region.
start: 2024-01-01
anchor: 2024-07-01 00:00:00
tables:
  shop:
    rows: 2000
    scaled: false
    primary_key: shop_id
    columns:
      shop_id: {kind: sequence}
      region: {kind: category, values: [north, south, east, west]}
      opened_on: {kind: date, start: 2023-01-01, end: 2024-05-01}
  courier:
    rows: 40
    scaled: false
    primary_key: courier_id
    columns:
      courier_id: {kind: sequence}
      region: {kind: category, values: [north, south, east, west]}
  product:
    rows: 40000
    scaled: false
    primary_key: product_id
    columns:
      product_id: {kind: sequence}
      shop_id: {kind: foreign, ref: shop.shop_id}
      featured: {kind: category, values: {1: 0.2, 0: 0.8}}
      listed_at: {kind: after, via: shop_id, of: opened_on, low: 0, high: 720}
  orders:
    rows: 30000
    scaled: false
    primary_key: order_id
    columns:
      order_id: {kind: sequence}
      shop_id: {kind: foreign, ref: shop.shop_id, follows: opened_on}
      product_id:
        kind: foreign
        ref: product.product_id
        follows: listed_at
        weight: {column: featured, values: {1: 4, 0: 1}}
        match: {column: shop_id, via: shop_id, share: 1.0}
      courier_id: {kind: foreign, ref: courier.courier_id, match: {column: region, via: shop_id, share: 1.0}}
      placed_at: {kind: timestamp}
"""


def test_match_across_thousands_of_groups(tmp_path: Path) -> None:
    path = tmp_path / "shops.db"
    generate(Spec.model_validate(yaml.safe_load(SPEC)), path, seed=4)
    failed = [c for c in verify(path) if not c.ok]
    assert not failed, failed
    conn = sqlite3.connect(path)
    checks = {
        "other shop's product": "SELECT count(*) FROM orders o JOIN product p USING (product_id) "
        "WHERE p.shop_id <> o.shop_id",
        "product listed later": "SELECT count(*) FROM orders o JOIN product p USING (product_id) "
        "WHERE p.listed_at > o.placed_at",
        "courier of another region": "SELECT count(*) FROM orders o JOIN shop s USING (shop_id) "
        "JOIN courier c USING (courier_id) WHERE c.region <> s.region",
    }
    assert {name: conn.execute(sql).fetchone()[0] for name, sql in checks.items()} == dict.fromkeys(checks, 0)
    # featured products are a fifth of the catalogue and sell four times as often: half of the orders
    featured = conn.execute("SELECT avg(p.featured) FROM orders o JOIN product p USING (product_id)").fetchone()[0]
    assert 0.46 <= featured <= 0.54
    used = conn.execute("SELECT count(DISTINCT shop_id), count(DISTINCT product_id) FROM orders").fetchone()
    assert used[0] > 1900 and used[1] > 15000
