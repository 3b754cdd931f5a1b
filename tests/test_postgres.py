"""The same benchmark on a real PostgreSQL server gets the same scores as on SQLite."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.db import SqlRejected, SqlTimeout, copy_database, open_database
from biarena.runner import RunStore
from tests.postgres_server import create_database, postgres_bin, postgres_server


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    if postgres_bin() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL must be installed in CI (scripts/test installs it)")
        pytest.skip("PostgreSQL is not installed")
    pytest.importorskip("psycopg")
    with postgres_server() as url:
        yield url


def _scores(run: Path) -> dict[tuple[str, str], float | None]:
    with RunStore(run) as store:
        return {(s.question_id, s.name): s.value for s in store.scores()}


def test_bis_synth_gold_on_postgres_scores_as_on_sqlite(postgres: str, bis_synth_dir: Path, tmp_path: Path) -> None:
    from tests.test_cli import biarena

    urls = {name: create_database(postgres, name) for name in ("ads", "ops")}
    loaded = biarena("load", bis_synth_dir, *(f"--db-url={n}={u}" for n, u in urls.items()))
    assert loaded.returncode == 0, loaded.stderr
    server_args = [f"--db-url={n}={u}" for n, u in urls.items()]
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


def test_postgres_sandbox(postgres: str, sales_db: Path) -> None:
    url = create_database(postgres, "sandbox")
    copy_database(sales_db, url)
    db = open_database(url, timeout=0.5)
    assert db.dialect == "postgres"
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    for sql in ("DELETE FROM sales", "SELECT 1; DROP TABLE sales", "SELECT pg_sleep(5)", "CREATE TABLE x (a int)"):
        with pytest.raises(SqlRejected):
            db.execute(sql)
    # the read-only transaction refuses a write even past the parser check
    with pytest.raises((SqlRejected,)):
        db._run("DELETE FROM sales", 5, 10)
    with pytest.raises(SqlTimeout):
        db.execute("SELECT count(*) FROM big a, big b, big c")
    assert db.execute("SELECT count(*) FROM sales").rows == [(400,)]
    result = db.execute("SELECT sale_id FROM sales ORDER BY sale_id", max_rows=10)
    assert result.row_count == 10 and result.truncated
    db.close()


def test_load_refuses_to_clobber(postgres: str, bis_synth_dir: Path) -> None:
    from tests.test_cli import biarena

    url = create_database(postgres, "twice")
    benchmark = load_benchmark(bis_synth_dir)
    ops = benchmark.database_location("ops")
    copy_database(ops, url)
    result = biarena("load", bis_synth_dir, f"--db-url=ops={url}", f"--db-url=ads={url}")
    assert result.returncode == 2 and "already exist" in result.stderr
