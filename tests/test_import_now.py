"""--now on every importer: a moment the user names, or auto (the latest timestamp in each database)."""

import json
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from biarena.benchmarks import import_bibench, import_bis, import_corgi, import_dbqa, load_benchmark
from biarena.benchmarks.latest_time import latest_timestamp
from biarena.errors import UsageError
from biarena.records import Question
from tests.cli_in_process import cli
from tests.test_cli import assert_user_error


def timed_db(path: Path) -> Path:
    """Dates in several shapes: ISO text, a DATE-typed column, sentinels, near-misses and numbers."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE orders (id INTEGER, placed TEXT, note TEXT, amount REAL);
        INSERT INTO orders VALUES (1, '2024-03-01 09:00:00', 'x', 1.5), (2, '2024-03-02T10:30:00', '2099', 2),
                                  (3, NULL, '2024-13-99 not a date', 3);
        CREATE TABLE events (id INTEGER, happened DATE, valid_until TEXT, stamp INTEGER);
        INSERT INTO events VALUES (1, '2024-02-10', '9999-12-31', 1900000000), (2, '2024-03-05', '9999-12-31', 0),
                                  (3, '2024-03-04', NULL, 5);
        CREATE TABLE "odd name" ("when" TEXT);
        INSERT INTO "odd name" VALUES ('2024-03-04 23:59:59');
        """
    )
    conn.commit()
    conn.close()
    return path


def test_latest_timestamp_across_tables(tmp_path: Path) -> None:
    found = latest_timestamp(timed_db(tmp_path / "t.sqlite"))
    assert found is not None
    assert found.moment == datetime(2024, 3, 5) and found.column == "events.happened"
    conn = sqlite3.connect(tmp_path / "t.sqlite")
    conn.execute("INSERT INTO orders VALUES (4, '2024-03-06 08:00', '2024-03-06x', 1)")
    conn.commit()
    conn.close()
    found = latest_timestamp(tmp_path / "t.sqlite")
    assert found is not None and (found.moment, found.column) == (datetime(2024, 3, 6, 8), "orders.placed")
    # the greatest ISO-looking text does not parse: the latest one that does is used
    conn = sqlite3.connect(tmp_path / "t.sqlite")
    conn.execute("INSERT INTO orders VALUES (5, '2024-03-07 25:00', NULL, 1), (6, '2024-03-06 12:00', NULL, 1)")
    conn.commit()
    conn.close()
    found = latest_timestamp(tmp_path / "t.sqlite")
    assert found is not None and found.moment == datetime(2024, 3, 6, 12)


def test_latest_timestamp_of_typed_columns_through_a_url(tmp_path: Path) -> None:
    path = timed_db(tmp_path / "t.sqlite")
    found = latest_timestamp(f"sqlite:///{path}")  # read as a server: date/time-typed columns only
    assert found is not None and (found.moment, found.column) == (datetime(2024, 3, 5), "events.happened")


def test_latest_timestamp_of_a_duckdb_file(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "t.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE a (d DATE, t TIMESTAMP, s VARCHAR)")
    conn.execute("INSERT INTO a VALUES ('2024-01-01', '2024-02-01 10:00', '2024-02-03 x'), (NULL, NULL, '2024-02-02')")
    conn.close()
    found = latest_timestamp(path)
    assert found is not None and (found.moment, found.column) == (datetime(2024, 2, 2), "a.s")


def dbqa_files(tmp_path: Path, db: Path) -> tuple[Path, Path]:
    spider = tmp_path / "database" / "shop"
    spider.mkdir(parents=True)
    shutil.copy(db, spider / "shop.sqlite")
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps({"question": "Orders last week?", "db_id": "shop"}) + "\n", encoding="utf-8")
    return path, spider.parent


def test_now_auto_is_stated_in_the_benchmark(tmp_path: Path) -> None:
    questions, spider = dbqa_files(tmp_path, timed_db(tmp_path / "t.sqlite"))
    result = cli("import", "dbqa", questions, "--databases", spider, "--now", "auto", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "clock for 'shop' anchored at 2024-03-05 00:00:00 (latest value of events.happened)" in result.stderr
    benchmark = load_benchmark(tmp_path / "out")
    ref = benchmark.databases["shop"]
    assert (ref.now, ref.now_from) == (datetime(2024, 3, 5), "events.happened")
    assert benchmark.anchor_for(benchmark.questions[0]) == datetime(2024, 3, 5)
    own = Question(id="x", text="?", database="shop", now=datetime(2020, 1, 1))
    assert benchmark.anchor_for(own) == datetime(2020, 1, 1)
    assert "now_from: events.happened" in (tmp_path / "out" / "benchmark.yaml").read_text(encoding="utf-8")


def test_now_auto_without_any_date(tmp_path: Path) -> None:
    plain = tmp_path / "plain.sqlite"
    conn = sqlite3.connect(plain)
    conn.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 'one')")
    conn.commit()
    conn.close()
    questions, spider = dbqa_files(tmp_path, plain)
    result = cli("import", "dbqa", questions, "--databases", spider, "--now", "auto", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "warning: now=auto: database 'shop' holds no date or time" in result.stderr
    benchmark = load_benchmark(tmp_path / "out")
    assert benchmark.now is None and benchmark.databases["shop"].now is None


def test_now_on_every_importer(tmp_path: Path, bis_sample: Path, sales_db: Path) -> None:
    moment = datetime(2024, 5, 1, 12)
    assert import_bis(bis_sample).now == datetime(2023, 1, 17, 20, 20, 15)
    assert import_bis(bis_sample, now=moment).now == moment
    auto = import_bis(bis_sample, now="auto")
    assert auto.now is None and auto.databases["dataset_2"].now_from == "cpu.timestamp"
    questions, spider = dbqa_files(tmp_path, sales_db)
    assert import_dbqa(questions, databases=spider, now="2024-05-01 12:00").now == moment
    bibench = tmp_path / "Descriptive.json"
    bibench.write_text(json.dumps([{"Query ID": 1, "Natural Language Query": "Sales?", "Domain": "Retail"}]))
    assert import_bibench(bibench, now=moment).now == moment
    with_db = import_bibench(bibench, databases={"Retail": str(sales_db)}, now="auto")
    assert with_db.databases["retail"].now == datetime(2023, 1, 17)
    with pytest.raises(UsageError, match="this import has none"):
        import_bibench(bibench, now="auto")
    pytest.importorskip("openpyxl")
    from tests.test_importers import vertical

    vertical(tmp_path / "corgi", "shop", sales_db, "zip")
    with import_corgi(tmp_path / "corgi", now="auto") as imported:
        assert imported.benchmark.databases["shop"].now == datetime(2023, 1, 17)
    with import_corgi(tmp_path / "corgi", now=moment) as imported:
        assert imported.benchmark.now == moment


@pytest.mark.parametrize(
    ("value", "shown"),
    [("2023-13-45", "2023-13-45"), ("yesterday", "yesterday"), ("2023-01-17 25:00", "'2023-01-17 25:00'"), ("", "''")],
)
def test_bad_now_is_one_line(tmp_path: Path, bis_sample: Path, value: str, shown: str) -> None:
    expected = f"importer 'bis': -O now={shown}: not a date or time"
    assert_user_error(cli("import", "bis", bis_sample, "--now", value, "-o", tmp_path / "out"), expected)
    assert_user_error(cli("import", "bis", bis_sample, "-O", f"now={value}", "-o", tmp_path / "out"), expected)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_latest_timestamp_prefers_business_dates_to_maintenance_stamps(tmp_path: Path, engine: str) -> None:
    import duckdb

    statements = [
        "CREATE TABLE rental (rental_id INTEGER, rental_date TIMESTAMP, last_update TIMESTAMP)",
        "INSERT INTO rental VALUES (1, '2005-08-23 22:50:12', '2006-02-23 04:12:08')",
        "CREATE TABLE staff (staff_id INTEGER, birth_date DATE)",
        "INSERT INTO staff VALUES (1, '2007-01-01')",
    ]
    path = tmp_path / f"rentals.{engine}"
    if engine == "sqlite":
        with sqlite3.connect(path) as conn:
            for statement in statements:
                conn.execute(statement)
    else:
        with duckdb.connect(str(path)) as conn:
            for statement in statements:
                conn.execute(statement)
    found = latest_timestamp(path)
    assert found is not None and found.column == "rental.rental_date"
    assert found.moment == datetime(2005, 8, 23, 22, 50, 12)
    # with no business date left, the stamp is the anchor still
    only = tmp_path / f"stamps.{engine}"
    with sqlite3.connect(only) if engine == "sqlite" else duckdb.connect(str(only)) as conn:
        conn.execute("CREATE TABLE film (film_id INTEGER, last_update TIMESTAMP)")
        conn.execute("INSERT INTO film VALUES (1, '2006-02-15 05:03:42')")
    found = latest_timestamp(only)
    assert found is not None and found.column == "film.last_update"
