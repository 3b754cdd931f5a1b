"""Sample databases for the draft-quality tests: a small shop with awkward shapes, and SQLite copied to DuckDB.

The shop has keys spelled `Id`, `XxxId` and `_id`, a table name with a space (`Sales Order`), a view, a line table
whose parent holds the date, a bridge table (`product_tag`), `last_update` audit columns, a birth date, and contact
columns (phone, e-mail, address, postal code, person names).
"""

import random
import re
import sqlite3
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

SHOP_DDL = """
CREATE TABLE "Region" ("Id" INTEGER PRIMARY KEY, "Name" TEXT NOT NULL);
CREATE TABLE "Store" (
  "StoreId" INTEGER PRIMARY KEY, "RegionId" INTEGER NOT NULL REFERENCES "Region" ("Id"), "Name" TEXT NOT NULL,
  "Phone" TEXT, "Email" TEXT, "Address" TEXT, "last_update" TIMESTAMP NOT NULL);
CREATE TABLE "customer" (
  "customer_id" INTEGER PRIMARY KEY, "first_name" TEXT, "last_name" TEXT, "email" TEXT, "phone" TEXT,
  "postal_code" TEXT, "segment" TEXT NOT NULL, "birth_date" DATE, "last_update" TIMESTAMP NOT NULL);
CREATE TABLE "Product" (
  "ProductId" INTEGER PRIMARY KEY, "Name" TEXT NOT NULL, "Category" TEXT NOT NULL, "list_price" NUMERIC(10,2),
  "weight_kg" NUMERIC(8,2));
CREATE TABLE "Tag" ("Id" INTEGER PRIMARY KEY, "Name" TEXT NOT NULL);
CREATE TABLE "product_tag" (
  "ProductId" INTEGER NOT NULL REFERENCES "Product" ("ProductId"), "TagId" INTEGER NOT NULL REFERENCES "Tag" ("Id"),
  PRIMARY KEY ("ProductId", "TagId"));
CREATE TABLE "Sales Order" (
  "OrderId" INTEGER PRIMARY KEY, "customer_id" INTEGER NOT NULL REFERENCES "customer" ("customer_id"),
  "StoreId" INTEGER NOT NULL REFERENCES "Store" ("StoreId"), "OrderDate" TIMESTAMP NOT NULL, "Channel" TEXT NOT NULL,
  "Status" TEXT NOT NULL, "ShippingFee" NUMERIC(10,2) NOT NULL, "last_update" TIMESTAMP NOT NULL);
CREATE TABLE "order_line" (
  "line_id" INTEGER PRIMARY KEY, "OrderId" INTEGER NOT NULL REFERENCES "Sales Order" ("OrderId"),
  "ProductId" INTEGER NOT NULL REFERENCES "Product" ("ProductId"), "quantity" INTEGER NOT NULL,
  "unit_price" NUMERIC(10,2) NOT NULL, "discount" NUMERIC(4,2) NOT NULL);
CREATE VIEW "order_totals" AS
  SELECT "OrderId", SUM("quantity" * "unit_price" * (1 - "discount")) AS "total" FROM "order_line" GROUP BY "OrderId";
"""
SHOP_VIEW_SQL = (
    'SELECT "OrderId", SUM("quantity" * "unit_price" * (1 - "discount")) AS "total" FROM "order_line" '
    'GROUP BY "OrderId"'
)
FIRST = ["Ana", "Ben", "Chen", "Dora", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"]
LAST = ["Smith", "Garcia", "Wang", "Müller", "Rossi", "Kim", "Silva", "Novak", "Dubois", "Sato"]


def build_shop_sqlite(path: Path, seed: int = 0) -> Path:
    """Write the awkward shop as an SQLite file (dates as ISO text) and return its path."""
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    con.executescript(SHOP_DDL)
    audit = "2024-01-05 03:00:00"
    regions = ["North", "South", "East", "West", "Central"]
    con.executemany('INSERT INTO "Region" VALUES (?, ?)', list(enumerate(regions, 1)))
    stores = [
        (
            i,
            rng.randint(1, len(regions)),
            f"Store {chr(64 + i)}",
            f"+1 555 01{i:02d}",
            f"store{i}@shop.test",
            f"{i * 7} Main Street",
            audit,
        )
        for i in range(1, 13)
    ]
    con.executemany('INSERT INTO "Store" VALUES (?, ?, ?, ?, ?, ?, ?)', stores)
    segments = ["consumer", "business", "student", "senior"]
    customers = []
    for i in range(1, 241):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        born = date(1950, 1, 1) + timedelta(days=rng.randint(0, 18000))
        customers.append(
            (
                i,
                first,
                last,
                f"{first.lower()}.{i}@mail.test",
                f"+44 20 7{rng.randint(100000, 999999)}",
                f"{rng.randint(10000, 99999)}",
                rng.choice(segments),
                born.isoformat(),
                audit,
            )
        )
    con.executemany('INSERT INTO "customer" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', customers)
    categories = ["books", "games", "garden", "kitchen", "toys", "tools"]
    products = [
        (
            i,
            f"Product {i:02d}",
            categories[i % len(categories)],
            round(rng.uniform(3, 120), 2),
            round(rng.uniform(0.1, 9), 2),
        )
        for i in range(1, 37)
    ]
    con.executemany('INSERT INTO "Product" VALUES (?, ?, ?, ?, ?)', products)
    tags = ["new", "sale", "eco", "gift", "bulk", "premium", "local", "imported"]
    con.executemany('INSERT INTO "Tag" VALUES (?, ?)', list(enumerate(tags, 1)))
    pairs = sorted({(rng.randint(1, 36), rng.randint(1, len(tags))) for _ in range(80)})
    con.executemany('INSERT INTO "product_tag" VALUES (?, ?)', pairs)
    start = datetime(2024, 1, 1, 8, 0, 0)
    orders, lines, line_id = [], [], 0
    for order_id in range(1, 2401):
        moment = start + timedelta(minutes=rng.randint(0, 60 * 24 * 400))
        orders.append(
            (
                order_id,
                rng.randint(1, 240),
                rng.randint(1, 12),
                moment.strftime("%Y-%m-%d %H:%M:%S"),
                rng.choice(["web", "web", "store", "phone", "app"]),
                rng.choice(["paid", "paid", "paid", "refunded", "cancelled"]),
                round(rng.choice([0, 0, 4.99, 9.99]), 2),
                audit,
            )
        )
        for product in rng.sample(range(1, 37), rng.randint(1, 4)):
            line_id += 1
            price = products[product - 1][3]
            lines.append((line_id, order_id, product, rng.randint(1, 5), price, rng.choice([0, 0, 0.1, 0.25])))
    con.executemany('INSERT INTO "Sales Order" VALUES (?, ?, ?, ?, ?, ?, ?, ?)', orders)
    con.executemany('INSERT INTO "order_line" VALUES (?, ?, ?, ?, ?, ?)', lines)
    con.commit()
    con.close()
    return path


def _duckdb_type(declared: str) -> str:
    kind = declared.upper()
    if match := re.match(r"(NUMERIC|DECIMAL)\s*\((\d+)\s*,\s*(\d+)\)", kind):
        return f"DECIMAL({match.group(2)},{match.group(3)})"
    if kind.startswith(("NUMERIC", "DECIMAL")):
        return "DECIMAL(12,2)"
    if "INT" in kind:
        return "BIGINT"
    if kind.startswith(("REAL", "FLOAT", "DOUBLE")):
        return "DOUBLE"
    if kind.startswith(("DATETIME", "TIMESTAMP")):
        return "TIMESTAMP"
    if kind.startswith("DATE"):
        return "DATE"
    if kind.startswith("BLOB"):
        return "BLOB"
    return "VARCHAR"


def _value(value: object, kind: str) -> object:
    if value is None:
        return None
    if kind == "TIMESTAMP":
        return datetime.fromisoformat(str(value))
    if kind == "DATE":
        return date.fromisoformat(str(value)[:10])
    if kind.startswith("DECIMAL"):
        return Decimal(str(value))
    return value


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sqlite_to_duckdb(source: Path, target: Path, views: dict[str, str] | None = None) -> Path:
    """Copy an SQLite file into DuckDB with typed columns and its primary and foreign keys declared.

    Tables are created parents first; a foreign key DuckDB cannot hold (a self reference, a cycle) is left out.
    `views` gives each view's SELECT in DuckDB's SQL.
    """
    import duckdb

    con = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    names = [
        r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    ]
    info = {t: list(con.execute(f"PRAGMA table_info({_quoted(t)})")) for t in names}
    foreign = {t: list(con.execute(f"PRAGMA foreign_key_list({_quoted(t)})")) for t in names}
    order: list[str] = []
    while len(order) < len(names):
        ready = [t for t in names if t not in order and {f[2] for f in foreign[t]} - {t} <= set(order)]
        order.append(ready[0] if ready else next(t for t in names if t not in order))
    out = duckdb.connect(str(target))
    for table in order:
        kinds = [_duckdb_type(c[2]) for c in info[table]]
        parts = [f"{_quoted(c[1])} {k}{' NOT NULL' if c[3] else ''}" for c, k in zip(info[table], kinds, strict=True)]
        primary = [c[1] for c in sorted((c for c in info[table] if c[5]), key=lambda c: c[5])]
        if primary:
            parts.append(f"PRIMARY KEY ({', '.join(_quoted(c) for c in primary)})")
        for fk in foreign[table]:
            if fk[2] in order[: order.index(table)]:
                parts.append(f"FOREIGN KEY ({_quoted(fk[3])}) REFERENCES {_quoted(fk[2])} ({_quoted(fk[4])})")
        out.execute(f"CREATE TABLE {_quoted(table)} ({', '.join(parts)})")
        columns = ", ".join(_quoted(c[1]) for c in info[table])
        rows = con.execute(f"SELECT {columns} FROM {_quoted(table)} ORDER BY rowid").fetchall()
        converted = [tuple(_value(v, k) for v, k in zip(row, kinds, strict=True)) for row in rows]
        if converted:  # through Arrow: DuckDB takes rows one by one for minutes
            import pyarrow

            batch = pyarrow.table({f"c{i}": [r[i] for r in converted] for i in range(len(kinds))})
            out.register("batch", batch)
            out.execute(f"INSERT INTO {_quoted(table)} SELECT * FROM batch")
            out.unregister("batch")
    for name, sql in (views or {}).items():
        out.execute(f"CREATE VIEW {_quoted(name)} AS {sql}")
    out.close()
    con.close()
    return target
