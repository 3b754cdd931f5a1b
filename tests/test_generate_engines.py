"""The same shop on SQLite (text dates), DuckDB (DATE/TIMESTAMP) and PostgreSQL gives the same questions and gold."""

from collections import Counter
from pathlib import Path

import pytest
import sqlglot

from biarena.db import open_database
from biarena.generate.factory import generate_question_set, latest_time
from biarena.generate.roles import Roles, load_roles
from biarena.generate.roles_check import check_roles
from biarena.generate.templates import CATEGORIES
from biarena.records import Question
from tests.engine_fixtures import shop, shop_files, shop_location, shop_postgres  # noqa: F401
from tests.shop_engines import LAST_ORDER, normalized

SHOP_ROLES = """
database: shop
facts:
  - table: orders
    names: {en: orders, zh: 订单}
    time: {column: order_date, grain: hour}
    ids: [order_id]
    metrics:
      - {column: revenue, aggregations: [sum, avg], names: {en: revenue, zh: 销售额}}
      - {column: quantity, aggregations: [sum], names: {en: units sold, zh: 销量}}
      - {column: discount_rate, aggregations: [avg], names: {en: discount rate, zh: 折扣率}}
    dimensions:
      - {column: status, names: {en: order status, zh: 订单状态}}
      - {column: city, table: customers, names: {en: city, zh: 城市}, plural: {en: cities}}
      - {column: segment, table: customers, names: {en: segment, zh: 客户类型}}
      - {column: category, table: products, names: {en: category, zh: 品类}, plural: {en: categories}}
joins:
  - {left: orders.customer_id, right: customers.customer_id}
  - {left: orders.product_id, right: products.product_id}
"""
ENGINES = ("sqlite", "duckdb", "duckdb_text", "postgres")


def _ordered(sql: str, dialect: str) -> bool:
    return sqlglot.parse_one(sql, read=dialect).args.get("order") is not None


def _gold(location: str, roles: Roles) -> list[tuple[Question, list[tuple], bool]]:
    with open_database(location) as db:
        check_roles(roles, db, "roles.yaml")
        anchor = latest_time(db, roles)
        assert anchor == LAST_ORDER
        made = generate_question_set(db, roles, languages=("en", "zh"), per_category=5, seed=3, now=anchor)
        out = []
        for question in made.questions:
            rows = db.execute(question.gold_sql[0], now=anchor).rows
            out.append(
                (
                    question,
                    [tuple(normalized(v) for v in row) for row in rows],
                    _ordered(question.gold_sql[0], db.dialect),
                )
            )
        return out


@pytest.fixture(scope="module")
def shop_roles(tmp_path_factory: pytest.TempPathFactory) -> Roles:
    path = tmp_path_factory.mktemp("roles") / "roles.yaml"
    path.write_text(SHOP_ROLES, encoding="utf-8")
    return load_roles(path)


@pytest.fixture(scope="module")
def sqlite_gold(shop_files: dict[str, str], shop_roles: Roles) -> list[tuple[Question, list[tuple], bool]]:  # noqa: F811
    return _gold(shop_files["sqlite"], shop_roles)


def test_sqlite_gold_covers_every_category(sqlite_gold: list[tuple[Question, list[tuple], bool]]) -> None:
    categories = Counter(q.category("bis") for q, _, _ in sqlite_gold)
    assert set(categories) == set(CATEGORIES), categories
    assert all(rows for _, rows, _ in sqlite_gold)
    labels = {label for q, _, _ in sqlite_gold for label in q.labels}
    assert "year_over_year" in labels


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "sqlite"])
def test_same_questions_same_gold(
    engine: str,
    sqlite_gold: list[tuple[Question, list[tuple], bool]],
    shop_roles: Roles,
    request: pytest.FixtureRequest,
) -> None:
    other = _gold(shop_location(engine, request), shop_roles)
    assert [q.text for q, _, _ in other] == [q.text for q, _, _ in sqlite_gold]
    for (question, expected, ordered), (_, got, _) in zip(sqlite_gold, other, strict=True):
        if ordered:
            assert got == expected, (question.id, question.text, question.gold_sql)
        else:
            assert Counter(got) == Counter(expected), (question.id, question.text, question.gold_sql)


def test_cli_generates_on_postgres_and_duckdb(
    shop_files: dict[str, str],  # noqa: F811
    shop_postgres: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    from biarena.benchmarks import load_benchmark
    from tests.test_cli import biarena

    roles = tmp_path / "roles.yaml"
    roles.write_text(SHOP_ROLES, encoding="utf-8")
    for name, location in (("duckdb", shop_files["duckdb"]), ("postgres", shop_postgres)):
        out = tmp_path / name
        done = biarena("generate", "templates", location, "--roles", roles, "-o", out, "--per-category", "2")
        assert done.returncode == 0, done.stderr
        benchmark = load_benchmark(out)
        ref = benchmark.databases["shop"]
        assert ref.dialect == ("postgres" if name == "postgres" else "duckdb")
        assert (ref.url is not None) == (name == "postgres")
        assert len(benchmark.questions) >= 2 * len(CATEGORIES)


def test_a_password_in_the_url_is_written_nowhere(shop_postgres: str, tmp_path: Path) -> None:  # noqa: F811
    from biarena.benchmarks import load_benchmark
    from tests.test_cli import biarena

    secret = "s3cret-Pass-in-url"
    with_password = shop_postgres.replace("@", f":{secret}@", 1)
    roles = tmp_path / "roles.yaml"
    drafted = biarena("generate", "roles", with_password, "-o", roles)
    made = biarena("generate", "templates", with_password, "-o", tmp_path / "bench", "--per-category", "1")
    for done in (drafted, made):
        assert done.returncode == 0, done.stderr
        assert secret not in done.stdout + done.stderr
        assert "written to no file" in done.stderr and "PGPASSWORD" in done.stderr
    assert "then biarena generate templates " + shop_postgres in drafted.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    # libpq takes it from the environment when the benchmark runs (trust here, so any password would do)
    assert load_benchmark(tmp_path / "bench").databases["shop"].url == shop_postgres


def test_postgres_types_sqlalchemy_and_distinct_do_not_know(tmp_path: Path) -> None:
    """A `point` column (no SQLAlchemy type) and a `json` one (no equality, so no COUNT(DISTINCT)) are drafted
    around, and the rest of the table is asked about."""
    import sqlalchemy as sa

    from tests.postgres_server import create_database, create_read_only_role, postgres_server, require_postgres
    from tests.test_cli import biarena

    require_postgres()
    with postgres_server() as base:
        admin = sa.create_engine(create_database(base, "odd"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(
                "CREATE TABLE event (event_id serial PRIMARY KEY, happened_at timestamp, kind text, payload json, "
                "amount numeric, spot point)"
            )
            conn.exec_driver_sql(
                "INSERT INTO event (happened_at, kind, payload, amount, spot) SELECT timestamp '2024-01-01' + "
                "g * interval '37 minutes', 'k' || (g %% 4), json_build_object('g', g), g * 1.5, point(g, g) "
                "FROM generate_series(1, 500) g"
            )
        admin.dispose()
        url = create_read_only_role(base, "odd")
        drafted = biarena("generate", "roles", url, "-o", tmp_path / "roles.yaml")
        assert drafted.returncode == 0, drafted.stderr
        assert "Warning" not in drafted.stderr
        roles = load_roles(tmp_path / "roles.yaml")
        (event,) = roles.facts
        assert event.time is not None and event.time.column == "happened_at"
        assert {m.column for m in event.metrics if m.column} == {"amount"}
        assert [d.column for d in event.dimensions] == ["kind"]
        made = biarena("generate", "templates", url, "-o", tmp_path / "bench", "--per-category", "1")
        assert made.returncode == 0, made.stderr
