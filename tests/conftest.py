"""Shared fixtures: a small sales database, the BIS sample when present, file checksums."""

import hashlib
import os
import random
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.run_helpers import require_embedded_model

ROOT = Path(__file__).resolve().parents[1]
BIS_SAMPLE = ROOT.parent / "shared" / "external" / "bis-sample"

# Built-in benchmarks and model replies are cached: keep the tests' cache apart from the user's,
# but share the assembled embedded model (1.1 GB) with every other run on this machine.
os.environ.setdefault("BIARENA_MODEL_HOME", str(Path.home() / ".cache" / "biarena"))
os.environ["BIARENA_HOME"] = _HOME = tempfile.mkdtemp(prefix="biarena-tests-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the tests' biarena home (built benchmarks, cached replies) when the session ends."""
    shutil.rmtree(_HOME, ignore_errors=True)


@pytest.fixture(scope="module")
def local_model_installed() -> None:
    """The embedded model is installed (else the test is skipped; in CI, failed)."""
    require_embedded_model()


def sha256(path: Path) -> str:
    """Checksum of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_sales_db(path: Path) -> Path:
    """A deterministic little sales database with dates, cities, products and a mapping table."""
    rng = random.Random(7)
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE city (city_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL,
                           population INTEGER);
        CREATE TABLE product (product_id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL);
        CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, day TEXT, city_id INTEGER REFERENCES city(city_id),
                            product_id INTEGER REFERENCES product(product_id), qty INTEGER, amount REAL);
        CREATE TABLE status_mapping (code TEXT PRIMARY KEY, meaning TEXT);
        CREATE TABLE big (n INTEGER);
        """
    )
    cities = [
        (1, "Dublin", "IE", 592000),
        (2, "London", "UK", 8900000),
        (3, "Paris", "FR", 2100000),
        (4, "Berlin", "DE", 3600000),
        (5, "Munich", "DE", 1500000),
    ]
    products = [
        (1, "chocolate", "sweets", 2.5),
        (2, "ice cream", "sweets", 3.25),
        (3, "coffee", "drinks", 4.0),
        (4, "tea", "drinks", 1.75),
        (5, "bagel", "bakery", 1.2),
    ]
    conn.executemany("INSERT INTO city VALUES (?,?,?,?)", cities)
    conn.executemany("INSERT INTO product VALUES (?,?,?,?)", products)
    sales = []
    for sale_id in range(1, 401):
        day = f"2023-01-{rng.randint(2, 17):02d}"
        city = rng.randint(1, 5)
        product = rng.randint(1, 5)
        qty = rng.randint(1, 9)
        sales.append((sale_id, day, city, product, qty, round(qty * products[product - 1][3], 2)))
    conn.executemany("INSERT INTO sales VALUES (?,?,?,?,?,?)", sales)
    conn.executemany("INSERT INTO status_mapping VALUES (?,?)", [("A", "active"), ("C", "closed")])
    conn.executemany("INSERT INTO big VALUES (?)", [(i,) for i in range(3000)])
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="session")
def sales_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One sales database per session (treat as read-only; copy it to change it)."""
    return make_sales_db(tmp_path_factory.mktemp("sales") / "sales.sqlite")


@pytest.fixture
def sales_db(tmp_path: Path, sales_db_template: Path) -> Path:
    """A private copy of the sales database."""
    target = tmp_path / "sales.sqlite"
    target.write_bytes(sales_db_template.read_bytes())
    return target


@pytest.fixture
def bis_sample() -> Path:
    """The published BIS sample beside the checkout; the test is skipped when it is absent."""
    if not (BIS_SAMPLE / "questions_dataset_2.json").is_file():
        pytest.skip("the BIS sample (../shared/external/bis-sample) is not beside this checkout")
    return BIS_SAMPLE


@pytest.fixture(scope="session")
def bis_synth_dir() -> Path:
    """The built-in bis-synth benchmark, built once per test session."""
    from biarena.benchmarks import resolve_benchmark

    benchmark = resolve_benchmark("bis-synth")
    assert benchmark.root is not None
    return benchmark.root


SALES_ROLES = """
database: sales
facts:
  - table: sales
    names: {en: sales, zh: 销售记录}
    time: {column: day, grain: day}
    ids: [sale_id]
    metrics:
      - {column: amount, aggregations: [sum, avg], names: {en: revenue, zh: 销售额}}
      - {column: qty, aggregations: [sum], names: {en: units sold, zh: 销量}}
    dimensions:
      - {column: city_id, names: {en: city id, zh: 城市编号}}
      - {column: product_id, names: {en: product id, zh: 产品编号}}
      - {column: name, table: city, names: {en: city, zh: 城市}, plural: {en: cities}}
      - {column: category, table: product, names: {en: category, zh: 品类}, plural: {en: categories}}
joins:
  - {left: sales.city_id, right: city.city_id}
  - {left: sales.product_id, right: product.product_id}
mappings:
  - {table: status_mapping, code: code, meaning: {en: meaning}, names: {en: status code, zh: 状态码}}
"""


@pytest.fixture(scope="module")
def reader_url() -> Iterator[str]:
    """A database named bench on a throwaway PostgreSQL server, as the docs' read-only role."""
    from tests.postgres_server import create_database, create_read_only_role, postgres_server, require_postgres

    require_postgres()
    with postgres_server() as url:
        create_database(url, "bench")
        yield create_read_only_role(url, "bench")
