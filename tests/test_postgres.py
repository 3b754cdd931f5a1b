"""The same benchmark on a real PostgreSQL server gets the same scores as on SQLite, and the sandbox holds there."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.db import SqlError, SqlRejected, SqlTimeout, copy_database, describe_schema, open_database
from biarena.errors import UsageError
from biarena.runner import RunStore
from tests.postgres_server import (
    create_database,
    create_read_only_role,
    postgres_server,
    require_postgres,
)
from tests.test_cli import assert_user_error

SECRET = "biarena-postgres-secret"


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    require_postgres()
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def sandbox_urls(postgres: str, sales_db_template: Path) -> tuple[str, str]:
    """A copy of the sales database on the server: (superuser URL, read-only role URL)."""
    url = create_database(postgres, "sandbox")
    copy_database(sales_db_template, url)
    return url, create_read_only_role(postgres, "sandbox")


@pytest.fixture(scope="module")
def secret_file() -> Iterator[Path]:
    """A file the server's own user can read (as a real /etc/passwd would be)."""
    path = Path("/tmp") / f"biarena-pg-secret-{os.getpid()}.txt"
    path.write_text(SECRET + "\n", encoding="utf-8")
    path.chmod(0o644)
    yield path
    path.unlink(missing_ok=True)


def _scores(run: Path) -> dict[tuple[str, str], float | None]:
    with RunStore(run) as store:
        return {(s.question_id, s.name): s.value for s in store.scores()}


def test_bis_synth_gold_on_postgres_scores_as_on_sqlite(postgres: str, bis_synth_dir: Path, tmp_path: Path) -> None:
    from tests.test_cli import biarena

    urls = {name: create_database(postgres, name) for name in ("ads", "ops")}
    loaded = biarena("load", bis_synth_dir, *(f"--db-url={n}={u}" for n, u in urls.items()))
    assert loaded.returncode == 0, loaded.stderr
    readers = {name: create_read_only_role(postgres, name) for name in urls}
    server_args = [f"--db-url={n}={u}" for n, u in readers.items()]
    lite, pg = tmp_path / "sqlite.run", tmp_path / "pg.run"
    for run, extra in ((lite, []), (pg, server_args)):
        result = biarena("run", bis_synth_dir, "--system", "gold", "-o", run, *extra)
        assert result.returncode == 0, result.stderr
        result = biarena("score", run)
        assert result.returncode == 0, result.stderr
    on_sqlite, on_postgres = _scores(lite), _scores(pg)
    assert on_sqlite.keys() == on_postgres.keys()
    differing = {k: (on_sqlite[k], on_postgres[k]) for k in on_sqlite if on_sqlite[k] != on_postgres[k]}
    assert not differing, list(differing.items())[:5]
    assert all(v == 1.0 for (_, name), v in on_postgres.items() if name != "valid_sql")
    with RunStore(pg) as store:
        answers = store.answers()
    assert all(a.steps and a.steps[0].ok for a in answers)
    # the answers ran PostgreSQL SQL: transpiled from the SQLite gold, the clock resolved to literals
    final = {a.question_id: a.final_sql or "" for a in answers}
    assert "NULLS FIRST" in final["ads/trend/000/en"] and "'now'" not in final["ads/trend/000/en"]
    # as the superuser that loaded the data, the run is refused unless asked for
    superuser_args = [f"--db-url={n}={u}" for n, u in urls.items()]
    refused = biarena("run", bis_synth_dir, "--system", "gold", "-o", tmp_path / "su.run", "--limit=1", *superuser_args)
    assert_user_error(refused, "superuser")
    allowed = biarena("run", bis_synth_dir, "--system", "gold", "-o", tmp_path / "su.run", "--limit=1",
                      "--allow-superuser", *superuser_args)
    assert allowed.returncode == 0, allowed.stderr


def test_postgres_sandbox(sandbox_urls: tuple[str, str]) -> None:
    _, reader = sandbox_urls
    db = open_database(reader, timeout=0.5)
    assert db.dialect == "postgres"
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    for sql in ("DELETE FROM sales", "SELECT 1; DROP TABLE sales", "SELECT pg_sleep(5)", "CREATE TABLE x (a int)"):
        with pytest.raises(SqlRejected):
            db.execute(sql)
    # the read-only transaction refuses a write even past the parser check
    with pytest.raises(SqlRejected):
        db._run("DELETE FROM sales", 5, 10)
    with pytest.raises(SqlTimeout):
        db.execute("SELECT count(*) FROM big a, big b, big c")
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    result = db.execute("SELECT sale_id FROM sales ORDER BY sale_id", max_rows=10)
    assert result.row_count == 10 and result.truncated
    db.close()
    unlimited = open_database(reader, timeout=float("inf"))
    assert unlimited.execute("SELECT count(*) FROM big").rows == [(3000,)]
    unlimited.close()


def test_superuser_is_refused_unless_allowed(sandbox_urls: tuple[str, str]) -> None:
    superuser, _ = sandbox_urls
    with pytest.raises(UsageError, match=r"superuser.*read-only role"):
        open_database(superuser)
    db = open_database(superuser, allow_superuser=True)
    assert db.execute("SELECT count(*) FROM city").rows == [(5,)]
    db.close()


# Server functions that read files, signal or reconfigure the server: none may run, however they are spelled.
SERVER_FUNCTIONS = [
    "pg_read_file('{path}')",
    "pg_read_binary_file('{path}')",
    "pg_ls_dir('/')",
    "lo_import('{path}')",
    "pg_cancel_backend(pg_backend_pid())",
    "pg_terminate_backend(12345)",
    "pg_reload_conf()",
    "pg_switch_wal()",
    "pg_create_restore_point('x')",
    "current_setting('data_directory')",
    "set_config('statement_timeout', '0', false)",
    "pg_stat_file('{path}')",
    "query_to_xml('select 1', true, true, '')",
]


def _spellings(call: str) -> list[str]:
    name, rest = call.split("(", 1)
    return [
        f"SELECT {name}({rest}",
        f'SELECT "{name}"({rest}',
        f"SELECT {name.upper()}({rest}",
        f"SELECT pg_catalog.{name}({rest}",
        f'SELECT "pg_catalog"."{name}"({rest}',
        f"SELECT PG_CATALOG.{name.upper()}({rest}",
        f'SELECT * FROM "{name}"({rest} AS f',
        f"SELECT * FROM pg_catalog.{name}({rest} AS f",
        f'SELECT (SELECT "{name}"({rest}) AS x',
        f'WITH c AS (SELECT "{name}"({rest} AS x) SELECT * FROM c',
    ]


HOSTILE = [sql for call in SERVER_FUNCTIONS for sql in _spellings(call)]


def test_hostile_corpus_is_refused_on_postgres(sandbox_urls: tuple[str, str], secret_file: Path) -> None:
    superuser, reader = sandbox_urls
    # even a superuser connection (when allowed) gets nothing past the parser check
    for url, allow in ((reader, False), (superuser, True)):
        db = open_database(url, allow_superuser=allow)
        for template in HOSTILE:
            with pytest.raises(SqlRejected) as caught:
                db.execute(template.format(path=secret_file))
            assert SECRET not in str(caught.value)
        assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
        db.close()


def test_read_only_role_keeps_the_file_unread_without_the_parser(
    sandbox_urls: tuple[str, str], secret_file: Path
) -> None:
    _, reader = sandbox_urls
    db = open_database(reader)
    for call in SERVER_FUNCTIONS[:4] + SERVER_FUNCTIONS[6:10]:
        sql = "SELECT " + call.format(path=secret_file)
        try:
            _, rows, _ = db._run(sql, 5, 10)
        except (SqlRejected, SqlError) as problem:
            assert SECRET not in str(problem)
        else:
            assert SECRET not in repr(rows), sql
    db.close()


# What the read-only role could read of the server before the sandbox kept to the benchmark's own schemas.
CATALOG_READS = [
    "SELECT name, setting FROM pg_settings",
    "SELECT rolname, rolsuper FROM pg_roles",
    "SELECT usename FROM pg_user",
    "SELECT pid, usename, client_addr, query FROM pg_stat_activity",
    "SELECT datname FROM pg_database",
    "SELECT name, default_version FROM pg_available_extensions",
]
# The same facts reached without naming those views: refused by the parser check alone.
CATALOG_ROUTES = [
    "SELECT role_name FROM information_schema.enabled_roles",
    "SELECT * FROM pg_catalog.pg_settings WHERE name = 'listen_addresses'",
    "SELECT current_setting('listen_addresses')",
    "SELECT version()",
    "SELECT inet_server_addr()",
    "SELECT has_table_privilege('pg_authid', 'SELECT')",
    "SELECT to_regclass('pg_authid')",
    "SELECT 'pg_authid'::regclass::oid",
    "SELECT 'postgres'::regrole::oid",
    "SELECT 'pg_catalog'::regnamespace::oid",
    "SELECT * FROM pg_show_all_settings()",
    "SELECT * FROM pg_stat_get_activity(NULL)",
    "SELECT current_user",
    "SELECT user",
]


@pytest.fixture(scope="module")
def bench_urls(postgres: str, sales_db_template: Path) -> tuple[str, str]:
    """Database bench (the sales tables, and tables named like settings and users): (superuser URL, recipe role URL)."""
    import sqlalchemy as sa

    url = create_database(postgres, "bench")
    copy_database(sales_db_template, url)
    owner = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with owner.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE settings (k text PRIMARY KEY, v text)")
        conn.exec_driver_sql("INSERT INTO settings VALUES ('currency', 'EUR')")
        conn.exec_driver_sql("CREATE TABLE users (id int PRIMARY KEY, name text, city_id int REFERENCES city)")
        conn.exec_driver_sql("INSERT INTO users VALUES (1, 'ada', 1)")
        conn.exec_driver_sql("CREATE TABLE public.pg_settings (name text)")  # the benchmark's own
        conn.exec_driver_sql("INSERT INTO public.pg_settings VALUES ('a benchmark row')")
    owner.dispose()
    return url, create_read_only_role(postgres, "bench")


def test_read_only_role_reads_the_benchmark_and_not_the_server(bench_urls: tuple[str, str]) -> None:
    _, reader = bench_urls
    db = open_database(reader)
    for sql in CATALOG_READS + CATALOG_ROUTES:
        with pytest.raises(SqlRejected, match="not allowed") as caught:
            db.execute(sql)
        assert "\n" not in str(caught.value) and "127.0.0.1" not in str(caught.value), sql
    # the recipe's revokes hold on the server too, for the catalog views it names
    for sql in CATALOG_READS:
        with pytest.raises(SqlRejected, match="permission denied"):
            db._run(sql, 5, 10)
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    assert db.execute("SELECT count(*) FROM public.sales").rows == [(400,)]
    assert db.execute("SELECT k, v FROM settings").rows == [("currency", "EUR")]
    joined = db.execute("SELECT u.name, c.name FROM users AS u JOIN city AS c USING (city_id)")
    assert joined.rows == [("ada", "Dublin")]
    assert db.execute("SELECT name FROM public.pg_settings").rows == [("a benchmark row",)]
    columns = db.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'sales' "
        "ORDER BY ordinal_position"
    )
    assert [c for (c,) in columns.rows] == ["sale_id", "day", "city_id", "product_id", "qty", "amount"]
    tables = db.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
    assert {"sales", "settings", "users", "pg_settings"} <= {t for (t,) in tables.rows}
    # biarena's own schema reading (trusted, past the check) works as the role
    assert {"sales", "city", "settings", "users"} <= set(db.tables())
    assert ("city_id", "city", "city_id") in db.foreign_keys("users")
    assert "CREATE TABLE users" in db.table_ddl("users")
    assert "foreign keys: users.city_id -> city.city_id" in describe_schema(db)
    db.close()


def test_read_only_role_cannot_create_anything(bench_urls: tuple[str, str]) -> None:
    """Past biarena's read-only transaction, the role docs/sandbox.md makes has no temporary tables and no schema."""
    import sqlalchemy as sa
    from sqlalchemy.exc import ProgrammingError

    _, reader = bench_urls
    engine = sa.create_engine(reader, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for sql in ("CREATE TEMP TABLE scratch (a int)", "CREATE TABLE public.scratch (a int)"):
            with pytest.raises(ProgrammingError, match="permission denied"):
                conn.exec_driver_sql(sql)
    engine.dispose()


def test_load_refuses_to_clobber(postgres: str, bis_synth_dir: Path) -> None:
    from tests.test_cli import biarena

    url = create_database(postgres, "twice")
    benchmark = load_benchmark(bis_synth_dir)
    ops = benchmark.database_location("ops")
    copy_database(ops, url)
    result = biarena("load", bis_synth_dir, f"--db-url=ops={url}", f"--db-url=ads={url}")
    assert result.returncode == 2 and "already exist" in result.stderr
