"""Fixtures: the shop database on SQLite (text dates), DuckDB (typed, and text) and a throwaway PostgreSQL server."""

from collections.abc import Iterator

import pytest

from tests.postgres_server import create_database, create_read_only_role, postgres_server, require_postgres
from tests.shop_engines import Shop, make_shop, write_duckdb, write_postgres, write_sqlite


@pytest.fixture(scope="module")
def shop() -> Shop:
    """The shop's rows."""
    return make_shop()


@pytest.fixture(scope="module")
def shop_files(shop: Shop, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The shop as an SQLite file, a DuckDB file with typed dates, and a DuckDB file with dates as text."""
    pytest.importorskip("duckdb")
    root = tmp_path_factory.mktemp("shop")
    text = write_duckdb(shop, root / "shop-text.duckdb", dates_as_text=True)
    return {
        "sqlite": str(write_sqlite(shop, root / "shop.sqlite")),
        "duckdb": str(write_duckdb(shop, root / "shop.duckdb")),
        "duckdb_text": str(text),
    }


@pytest.fixture(scope="module")
def shop_postgres(shop: Shop) -> Iterator[str]:
    """The shop on a throwaway PostgreSQL server: the URL of a read-only role."""
    require_postgres()
    with postgres_server() as base:
        url = create_database(base, "shop")
        write_postgres(shop, url)
        yield create_read_only_role(base, "shop")


def shop_location(name: str, request: pytest.FixtureRequest) -> str:
    """Where engine `name` (sqlite, duckdb, duckdb_text, postgres) holds the shop."""
    if name == "postgres":
        return request.getfixturevalue("shop_postgres")
    return request.getfixturevalue("shop_files")[name]
