"""Functions are allowed by name per engine, however the name is quoted, qualified or cased; analysts' SQL passes."""

import json
import re
import sqlite3
from pathlib import Path

import pytest

from biarena.benchmarks import resolve_benchmark
from biarena.db import SqlError, SqlRejected, check_read_only, open_database
from biarena.db.allowed_functions import ALLOWED_FUNCTIONS
from biarena.db.clock import anchor_clock, fold_sqlite_time_calls
from biarena.db.sqlite_database import SqliteDatabase
from tests.conftest import BIS_SAMPLE, sha256

SECRET = "biarena-secret-line"

# A hostile function, spelled every way a parser could be fooled: quoted, cased, schema-qualified, in FROM.
SPELLINGS = [
    "SELECT {f}('{path}')",
    'SELECT "{f}"(\'{path}\')',
    "SELECT {F}('{path}')",
    'SELECT "{F}"(\'{path}\')',
    "SELECT main.{f}('{path}')",
    'SELECT "main"."{f}"(\'{path}\')',
    "SELECT * FROM {f}('{path}')",
    'SELECT * FROM "{f}"(\'{path}\')',
    "SELECT x FROM (SELECT {f}('{path}') AS x) AS t",
    "SELECT length(\"{f}\"('{path}'))",
    "WITH c AS (SELECT \"{f}\"('{path}') AS x) SELECT x FROM c",
    "SELECT 1 WHERE \"{f}\"('{path}') IS NOT NULL",
]

SQLITE_HOSTILE = ["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zeroblob", "randomblob"]
DUCKDB_HOSTILE = [
    "read_text",
    "read_blob",
    "read_csv",
    "read_csv_auto",
    "read_json",
    "read_parquet",
    "glob",
    "query",
    "query_table",
    "getvariable",
    "current_setting",
    "duckdb_settings",
    "duckdb_secrets",
    "sniff_csv",
    "parquet_metadata",
    "pg_sleep",
]
SERVER_ONLY = ["pg_read_file", "pg_ls_dir", "lo_import", "dblink", "set_config", "nextval"]


def _cases(names: list[str]) -> list[str]:
    return [spelling.format(f=name, F=name.upper(), path="{path}") for name in names for spelling in SPELLINGS]


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(f"{SECRET}\n", encoding="utf-8")
    return path


def _never_returned(db: object, sql: str) -> None:
    with pytest.raises(SqlRejected):
        db.execute(sql)  # type: ignore[attr-defined]


@pytest.mark.parametrize("template", _cases(SQLITE_HOSTILE + SERVER_ONLY + DUCKDB_HOSTILE[:4]))
def test_sqlite_refuses_functions_off_the_list(sales_db: Path, secret_file: Path, template: str) -> None:
    before = sha256(sales_db)
    db = SqliteDatabase(sales_db)
    _never_returned(db, template.format(path=secret_file))
    db.close()
    assert sha256(sales_db) == before


@pytest.mark.parametrize("name", ["readfile", "load_extension", "fts3_tokenizer", "zeroblob", "sqlite_version"])
def test_sqlite_authorizer_refuses_them_without_the_parser(sales_db: Path, secret_file: Path, name: str) -> None:
    db = SqliteDatabase(sales_db)
    for sql in (f"SELECT {name}('{secret_file}')", f"SELECT \"{name.upper()}\"('{secret_file}')"):
        with pytest.raises((SqlRejected, SqlError)) as caught:
            db._run(sql, 5, 10)
        assert SECRET not in str(caught.value)
    db.close()


@pytest.fixture
def duck_db(tmp_path: Path) -> Path:
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "w.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE TABLE t AS SELECT range AS n, 'x' || range AS s, '{\"a\": 1}' AS j FROM range(100)")
    conn.close()
    return path


@pytest.mark.parametrize("template", _cases(DUCKDB_HOSTILE + SERVER_ONLY + ["load_extension"]))
def test_duckdb_refuses_functions_off_the_list(duck_db: Path, secret_file: Path, template: str) -> None:
    db = open_database(duck_db)
    _never_returned(db, template.format(path=secret_file))
    db.close()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM '{path}'",
        'SELECT * FROM "{path}"',
        "SELECT * FROM 'data.csv'",
        'SELECT * FROM "export.parquet"',
        "SELECT count(*) FROM t JOIN '{path}' AS f ON true",
    ],
)
def test_duckdb_refuses_files_named_as_tables(duck_db: Path, secret_file: Path, sql: str) -> None:
    db = open_database(duck_db)
    _never_returned(db, sql.format(path=secret_file))
    db.close()


def test_duckdb_engine_refuses_file_reads_without_the_parser(duck_db: Path, secret_file: Path) -> None:
    db = open_database(duck_db)
    for sql in (f"SELECT * FROM read_text('{secret_file}')", f"SELECT * FROM '{secret_file}'"):
        with pytest.raises((SqlRejected, SqlError)) as caught:
            db._run(sql, 5, 10)
        assert SECRET not in str(caught.value)
    db.close()


def test_postgres_spellings_are_refused_by_the_parser_alone() -> None:
    for template in _cases([*SERVER_ONLY, "pg_cancel_backend", "pg_reload_conf", "pg_switch_wal", "lo_export"]):
        sql = template.format(path="/etc/passwd")
        with pytest.raises(SqlRejected, match="not allowed"):
            check_read_only(sql, "postgres")
    with pytest.raises(SqlRejected, match="only the engine's own"):
        check_read_only("SELECT public.lower('x')", "postgres")
    assert check_read_only("SELECT pg_catalog.lower('X')", "postgres") is not None


def test_size_taking_functions_need_constant_sizes_off_sqlite() -> None:
    for sql in ("SELECT repeat('x', n) FROM t", "SELECT lpad(s, 2000000, '0') FROM t", "SELECT range(100000000)"):
        with pytest.raises(SqlRejected, match="constant"):
            check_read_only(sql, "duckdb", max_cell_bytes=1_000_000)
    with pytest.raises(SqlRejected, match="cell limit"):
        check_read_only("SELECT printf('%2000000d', 1)", "duckdb", max_cell_bytes=1_000_000)
    for sql in ("SELECT repeat('-', 10), lpad(s, 2, '0'), printf('%.2f', 1.5), range(5) FROM t",):
        check_read_only(sql, "duckdb", max_cell_bytes=1_000_000)
    check_read_only("SELECT * FROM range(100000000)", "duckdb", max_cell_bytes=1_000_000)


# Sizes given through an argument, in a format spec, or multiplied by nesting: (dialect, statement, why).
SIZES_REFUSED = [
    ("duckdb", "SELECT len(repeat([repeat('x', 1000000)], 1000000))", "repeat() would build"),
    ("duckdb", "SELECT repeat(repeat('x', 1000), 2000)", "repeat() would build"),
    ("duckdb", "SELECT length(printf('%*d', 1000000000, 1))", "width from an argument"),
    ("duckdb", "SELECT printf('%*d', n, 1) FROM t", "width from an argument"),
    ("duckdb", "SELECT printf('%.*f', 100000000, 1.5)", "width from an argument"),
    ("duckdb", "SELECT printf('%2$*1$d', 1000000000, 1)", "width from an argument"),
    ("duckdb", "SELECT length(format('{:>{}}', 'x', 1000000000))", "width from an argument"),
    ("duckdb", "SELECT format('{0:>{1}}', 'x', 1000000000)", "width from an argument"),
    ("duckdb", "SELECT format('{:>{}}', 'x', n) FROM t", "width from an argument"),
    ("duckdb", "SELECT format('{:>1000000000}', 'x')", "pads past"),
    ("duckdb", "SELECT to_base(5, 2, 1000000000)", "constant size"),
    ("duckdb", "SELECT bin(bin(bin(repeat('x', 100000))))", "bin() would build"),
    ("duckdb", "SELECT replace(repeat('x', 1000000), 'x', repeat('y', 1000000))", "replace() would build"),
    ("duckdb", "SELECT list_transform(range(100000), x -> repeat('a', 1000))", "list_transform() would build"),
    ("duckdb", "SELECT concat(repeat('x', 600000), repeat('y', 600000))", "concat() would build"),
    ("postgres", "SELECT format('%*s', 1000000000, 'x')", "width from an argument"),
    ("postgres", "SELECT format('%*s', n, 'x') FROM t", "width from an argument"),
    ("postgres", "SELECT repeat(repeat('x', 1000000), 1000000)", "repeat() would build"),
    ("postgres", "SELECT regexp_replace(repeat('x', 1000000), 'x', repeat('y', 1000000), 'g')", "would build"),
    ("mysql", "SELECT space(1000000000)", "constant size"),
]

SIZES_ALLOWED = [
    ("duckdb", "SELECT repeat(repeat('x', 1000), 1000), hex(repeat('x', 1000)), replace(s, 'x', 'yy') FROM t"),
    ("duckdb", "SELECT printf('%*d', 10, 1), printf('%-10s|%5.2f|%%', 'a', 1.5), printf('%2$*1$d', 10, 1)"),
    ("duckdb", "SELECT format('{:>{}}', 'x', 10), format('{} and {}', 1, 2), format('{0:.{1}f}', 1.5, 2)"),
    ("duckdb", "SELECT to_base(5, 2, 10), to_base(5, 2), list_transform([1, 2], x -> repeat('a', 10))"),
    ("postgres", "SELECT format('%s-%s', 'a', 'b'), format('%*s', 5, 'x'), format('%1$s %1$I', 'a')"),
    ("mysql", "SELECT space(3), format(1.5, 2)"),
]


@pytest.mark.parametrize(("dialect", "sql", "why"), SIZES_REFUSED)
def test_sizes_through_arguments_specs_and_nesting_are_bounded(dialect: str, sql: str, why: str) -> None:
    with pytest.raises(SqlRejected, match=re.escape(why)):
        check_read_only(sql, dialect, max_cell_bytes=1_048_576)


@pytest.mark.parametrize(("dialect", "sql"), SIZES_ALLOWED)
def test_small_sizes_pass(dialect: str, sql: str) -> None:
    assert check_read_only(sql, dialect, max_cell_bytes=1_048_576) is not None


ANALYST_SQLITE = [
    "SELECT city_id, sum(amount) AS revenue, rank() OVER (ORDER BY sum(amount) DESC) AS r FROM sales GROUP BY city_id",
    "WITH d AS (SELECT day, sum(qty) AS q FROM sales GROUP BY day) "
    "SELECT day, q, avg(q) OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS moving FROM d",
    "SELECT CASE WHEN amount > 10 THEN 'big' ELSE 'small' END AS size, count(*) FROM sales GROUP BY 1",
    "SELECT strftime('%Y-%W', day) AS week, date(day, '+7 day'), julianday(day) - julianday('2023-01-01') FROM sales",
    "SELECT lag(amount) OVER (PARTITION BY city_id ORDER BY day), lead(amount, 2, 0) OVER w FROM sales "
    "WINDOW w AS (ORDER BY sale_id)",
    "SELECT ntile(4) OVER (ORDER BY amount), percent_rank() OVER (ORDER BY amount), cume_dist() OVER (ORDER BY qty) "
    "FROM sales",
    "SELECT json_extract('{\"a\": {\"b\": 2}}', '$.a.b'), '{\"a\": 1}' ->> '$.a', json_array_length('[1,2,3]')",
    "SELECT j.key, j.value FROM json_each('{\"x\": 1, \"y\": 2}') AS j",
    "SELECT CAST(amount AS INTEGER), round(amount, 1), abs(-qty), coalesce(NULL, 1), nullif(qty, 0), "
    "iif(qty > 3, 1, 0) FROM sales",
    "SELECT upper(name), lower(country), length(name), substr(name, 1, 3), replace(name, 'o', '0'), trim(' x '), "
    "instr(name, 'a'), printf('%.2f', population / 1e6) FROM city",
    "SELECT group_concat(name, ', '), max(population), min(population), total(population) FROM city",
    "SELECT sqrt(population), ln(population), power(2, 3), ceil(1.2), floor(1.8) FROM city",
    "SELECT count(DISTINCT city_id) FILTER (WHERE qty > 2) FROM sales",
    "SELECT * FROM pragma_table_info('sales')",
    "SELECT date('now', 'start of month', '-1 month'), datetime('now'), unixepoch('now')",
]


@pytest.mark.parametrize("sql", ANALYST_SQLITE)
def test_analyst_sql_runs_on_sqlite(sales_db: Path, sql: str) -> None:
    db = SqliteDatabase(sales_db)
    assert db.execute(sql).columns
    db.close()


ANALYST_DUCKDB = [
    "SELECT n % 7 AS d, sum(n), median(n), quantile_cont(n, 0.9), stddev(n), string_agg(s, ',') FROM t GROUP BY 1",
    "SELECT date_trunc('month', DATE '2023-05-17'), date_part('dow', DATE '2023-05-17'), "
    "strftime(DATE '2023-05-17', '%Y-%m'), DATE '2023-05-17' + INTERVAL 3 DAY, datediff('day', DATE '2023-01-01', "
    "DATE '2023-05-17'), make_date(2023, 1, 2), year(DATE '2023-05-17')",
    "SELECT json_extract(j, '$.a'), j->>'$.a', json_extract_string(j, '$.a') FROM t LIMIT 1",
    "WITH x AS (SELECT n, row_number() OVER (ORDER BY n DESC) AS r FROM t) SELECT * FROM x WHERE r <= 3",
    "SELECT TRY_CAST(s AS INTEGER), CAST(n AS VARCHAR), regexp_replace(s, 'x', 'y'), split_part(s, 'x', 2) FROM t",
    "SELECT * FROM generate_series(1, 5)",
    "SELECT unnest([1, 2, 3]) AS v",
    "SELECT list_sum([1, 2]), len(s), lpad(s, 6, '0'), repeat('-', 3) FROM t LIMIT 2",
]


@pytest.mark.parametrize("sql", ANALYST_DUCKDB)
def test_analyst_sql_runs_on_duckdb(duck_db: Path, sql: str) -> None:
    db = open_database(duck_db)
    assert db.execute(sql).columns
    db.close()


def _gold(benchmark_name: str) -> list[tuple[str, object]]:
    benchmark = resolve_benchmark(benchmark_name)
    return [(sql, benchmark.anchor_for(q)) for q in benchmark.questions for sql in q.gold_sql]


@pytest.mark.parametrize("name", ["bis-synth", "corgi-synth"])
def test_builtin_gold_passes_the_check_on_every_engine(name: str) -> None:
    """Every gold query passes as written (SQLite) and as transpiled to DuckDB and PostgreSQL."""
    refused = []
    for sql, now in _gold(name):
        tree = check_read_only(sql, "sqlite")
        if now is not None:
            # as the sandbox does for another engine: SQLite's run-time checks are written for SQLite only
            tree, _ = anchor_clock(tree, now, "sqlite", guard=False)
        tree = fold_sqlite_time_calls(tree)
        for target in ("duckdb", "postgres"):
            try:
                check_read_only(tree.sql(dialect=target), target)
            except SqlRejected as problem:
                refused.append((target, sql, str(problem)))
    assert not refused, refused[:3]


def test_bis_sample_gold_passes_the_check() -> None:
    if not BIS_SAMPLE.is_dir():
        pytest.skip("the BIS sample is not beside this checkout")
    for path in BIS_SAMPLE.glob("questions_*.json"):
        for item in json.loads(path.read_text(encoding="utf-8")):
            check_read_only(item["query"], "sqlite")


def test_corgi_synth_gold_runs_in_the_sandbox() -> None:
    benchmark = resolve_benchmark("corgi-synth")
    failed = []
    with_gold = [q for q in benchmark.questions if q.gold_sql]
    assert with_gold
    databases = {name: SqliteDatabase(benchmark.database_location(name)) for name in benchmark.databases}
    for question in with_gold:
        try:
            databases[question.database].execute(question.gold_sql[0], now=benchmark.anchor_for(question))
        except (SqlRejected, SqlError) as problem:
            failed.append((question.id, str(problem)))
    for db in databases.values():
        db.close()
    assert not failed, failed[:3]


def test_every_engine_list_holds_the_analyst_core() -> None:
    core = {"sum", "avg", "count", "min", "max", "row_number", "rank", "lag", "lead", "coalesce", "round", "lower"}
    for dialect, names in ALLOWED_FUNCTIONS.items():
        assert core <= names, dialect
        assert not {"load_extension", "pg_read_file", "read_csv", "current_setting", "nextval"} & names, dialect


def test_sqlite_connection_cannot_load_extensions(sales_db: Path) -> None:
    db = SqliteDatabase(sales_db)
    with pytest.raises(sqlite3.OperationalError):
        db._conn.execute("SELECT load_extension('x')").fetchall()
    db.close()
