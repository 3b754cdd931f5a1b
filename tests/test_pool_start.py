"""DatabasePool.start: a run's first databases get their engines ready before their first statements."""

import threading
from pathlib import Path

import pytest

from biarena.agents import make_system
from biarena.db import DatabasePool
from biarena.db.sqlite_database import SqliteDatabase
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.runner import RunStore, make_spec, open_run, run_benchmark


def _pool(sales_db: Path, **more: str) -> DatabasePool:
    databases = {"sales": DatabaseRef(path=str(sales_db))}
    databases.update({name: DatabaseRef(path=path) for name, path in more.items()})
    return DatabasePool(Benchmark(name="shop", databases=databases, questions=[]))


def test_a_started_database_has_its_engine_running_and_answers_as_before(sales_db: Path) -> None:
    pool = _pool(sales_db)
    try:
        pool.start(["sales", "sales"])
        db = pool.get("sales")
        assert isinstance(db, SqliteDatabase)
        pool.close()  # waits for the engine being started, then stops it
        assert db._worker.pid is None
        pool = _pool(sales_db)
        pool.start(["sales"])
        started = pool.get("sales").execute("SELECT count(*) FROM sales")
        unstarted = SqliteDatabase(sales_db)
        try:
            assert started.rows == unstarted.execute("SELECT count(*) FROM sales").rows
        finally:
            unstarted.close()
    finally:
        pool.close()


def test_a_database_that_cannot_open_is_told_at_its_first_use_not_at_start(sales_db: Path, tmp_path: Path) -> None:
    pool = _pool(sales_db, gone=str(tmp_path / "gone.sqlite"))
    try:
        pool.start(["gone", "unknown", "sales"])
        assert pool.get("sales").execute("SELECT 1").rows == [(1,)]
    finally:
        pool.close()


def test_the_schema_is_read_while_a_statement_runs(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    try:
        db.start()
        running = threading.Event()
        release = threading.Event()
        original = db._run

        def held(sql: str, timeout: float, max_rows: int) -> tuple:
            running.set()
            release.wait()
            return original(sql, timeout, max_rows)

        db._run = held  # type: ignore[method-assign]
        worker = threading.Thread(target=db.execute, args=("SELECT count(*) FROM sales",))
        worker.start()
        running.wait()
        read: list[bool] = []

        def read_schema() -> None:
            tables, ddl = db.tables(), db.table_ddl("sales")
            read.append("sales" in tables and ddl.startswith("CREATE TABLE") and not release.is_set())

        reader = threading.Thread(target=read_schema)
        reader.start()
        reader.join(60)  # a read that waited for the statement ends only once the statement is let go
        release.set()
        worker.join()
        reader.join()
        assert read == [True]
    finally:
        db.close()


def test_a_run_starts_the_engines_of_its_first_questions_databases(
    sales_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = [
        Question(id=f"q{i}", text=f"question {i}", database=name, gold_sql=["SELECT count(*) FROM sales"])
        for i, name in enumerate(["sales", "copy", "sales", "copy"])
    ]
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(sales_db.read_bytes())
    databases = {"sales": DatabaseRef(path=str(sales_db)), "copy": DatabaseRef(path=str(copy))}
    benchmark = Benchmark(name="shop", databases=databases, questions=questions)
    started: list[list[str]] = []
    monkeypatch.setattr(DatabasePool, "start", lambda pool, names: started.append(list(names)))
    for concurrency, first in ((1, ["sales"]), (2, ["sales", "copy"])):
        system = make_system("gold")
        pool = DatabasePool(benchmark)
        with RunStore(tmp_path / f"c{concurrency}.run", create=True) as store:
            open_run(store, make_spec("shop", benchmark, system, questions), questions)
            run_benchmark(benchmark, system, store, pool, questions, concurrency=concurrency)
            assert len(store.answers()) == len(questions)
        pool.close()
        assert started.pop() == first
