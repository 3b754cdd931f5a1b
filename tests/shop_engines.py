"""A small shop (customers, products, orders) in SQLite with text dates, in DuckDB and PostgreSQL with typed ones."""

import random
import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

CITIES = ("berlin", "lyon", "madrid", "oslo", "porto", "rome")
SEGMENTS = ("consumer", "corporate", "small business")
CATEGORIES = ("books", "games", "garden", "kitchen", "music", "toys")
STATUSES = ("cancelled", "paid", "refunded", "shipped")
FIRST_ORDER = datetime(2023, 1, 1, 8, 0, 0)
LAST_ORDER = datetime(2024, 6, 30, 18, 30, 0)
"""The latest order: the generation's anchor."""


@dataclass(frozen=True)
class Shop:
    """The shop's rows, table by table, with each table's columns and their types per engine."""

    customers: list[tuple]
    products: list[tuple]
    orders: list[tuple]


def make_shop(seed: int = 7, orders: int = 1500) -> Shop:
    """Deterministic rows: 40 customers, 24 products, `orders` orders from FIRST_ORDER to LAST_ORDER."""
    rng = random.Random(seed)
    customers = [
        (
            i,
            f"customer {i:02d}",
            CITIES[i % len(CITIES)],
            SEGMENTS[i % len(SEGMENTS)],
            date(2022, 1, 1) + timedelta(days=9 * i),
        )
        for i in range(1, 41)
    ]
    products = [(i, f"product {i:02d}", CATEGORIES[i % len(CATEGORIES)], round(5 + 3.25 * i, 2)) for i in range(1, 25)]
    span = (LAST_ORDER - FIRST_ORDER).total_seconds()
    made = []
    for i in range(1, orders):
        moment = FIRST_ORDER + timedelta(seconds=int(rng.random() * span) // 60 * 60)
        product = rng.choice(products)
        quantity = rng.randint(1, 5)
        discount = rng.choice([0.0, 0.05, 0.1, 0.2])
        revenue = round(product[3] * quantity * (1 - discount), 2)
        made.append((i, rng.randint(1, 40), product[0], moment, rng.choice(STATUSES), quantity, revenue, discount))
    made[0] = (1, 1, 1, FIRST_ORDER, "paid", 1, products[0][3], 0.0)
    made.append((orders, 1, 1, LAST_ORDER, "paid", 1, products[0][3], 0.0))
    return Shop(customers, products, made)


_DDL = {
    "customers": "customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT, segment TEXT, signup_date {date}",
    "products": "product_id INTEGER PRIMARY KEY, name TEXT, category TEXT, price {real}",
    "orders": (
        "order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), "
        "product_id INTEGER REFERENCES products(product_id), order_date {timestamp}, status TEXT, quantity INTEGER, "
        "revenue {real}, discount_rate {real}"
    ),
}


def _text(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _statements(shop: Shop, types: dict[str, str]) -> list[tuple[str, list[tuple]]]:
    out = []
    for name in ("customers", "products", "orders"):
        rows = getattr(shop, name)
        out.append((f"CREATE TABLE {name} ({_DDL[name].format(**types)})", []))
        marks = ", ".join("?" for _ in rows[0])
        out.append((f"INSERT INTO {name} VALUES ({marks})", rows))
    return out


def write_sqlite(shop: Shop, path: Path) -> Path:
    """The shop in SQLite, dates as ISO text."""
    conn = sqlite3.connect(path)
    with conn:
        for sql, rows in _statements(shop, {"date": "TEXT", "timestamp": "TEXT", "real": "REAL"}):
            if rows:
                conn.executemany(sql, [tuple(_text(v) for v in row) for row in rows])
            else:
                conn.execute(sql)
    conn.close()
    return path


def write_duckdb(shop: Shop, path: Path, *, dates_as_text: bool = False) -> Path:
    """The shop in DuckDB with DATE and TIMESTAMP columns (or, `dates_as_text`, VARCHAR ones holding ISO text)."""
    import duckdb

    conn = duckdb.connect(str(path))
    types = {"date": "VARCHAR", "timestamp": "VARCHAR"} if dates_as_text else {"date": "DATE", "timestamp": "TIMESTAMP"}
    for sql, rows in _statements(shop, {**types, "real": "DOUBLE"}):
        if rows:
            conn.executemany(sql, [tuple(_text(v) for v in row) for row in rows] if dates_as_text else rows)
        else:
            conn.execute(sql)
    conn.close()
    return path


def write_postgres(shop: Shop, url: str) -> None:
    """The shop in a PostgreSQL database (its superuser URL) with DATE and TIMESTAMP columns."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for sql, rows in _statements(shop, {"date": "DATE", "timestamp": "TIMESTAMP", "real": "DOUBLE PRECISION"}):
            if rows:
                driver = sql.replace("?", "%s")
                conn.exec_driver_sql(driver, [tuple(row) for row in rows])
            else:
                conn.exec_driver_sql(sql)
    engine.dispose()


def normalized(value: object) -> object:
    """A cell as compared across engines: numbers rounded to 4 decimals, ISO text read as a date or moment."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | Decimal):
        return round(float(value), 4)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None) if value.time() != datetime.min.time() else value.date()
    if isinstance(value, str) and len(value) >= 10 and value[4:5] == "-" and value[7:8] == "-":
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
        return moment.date() if moment.time() == datetime.min.time() else moment
    return value
