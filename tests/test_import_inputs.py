"""Malformed input files are one line and exit 2, naming the file and what is wrong; never a traceback."""

import json
import shutil
from pathlib import Path

import pytest

from biarena.benchmarks import import_bibench, import_bis, import_dbqa, load_benchmark, save_benchmark
from biarena.errors import FormatError
from biarena.records import Benchmark, DatabaseRef, Question
from tests.cli_in_process import cli
from tests.test_cli import assert_user_error, biarena

BAD_UTF8 = b'[{"question": "caf\xe9"}]'
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "1" * 5000


@pytest.fixture
def bis(bis_sample: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bis"
    shutil.copytree(bis_sample, target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (BAD_UTF8, "not UTF-8 text (byte 18"),
        (DEEP.encode(), "nested too deeply"),
        (f'[{{"db_id": {HUGE}}}]'.encode(), "Exceeds the limit (4300 digits)"),
        (b'[{"db_id": 7, "query": "SELECT 1", "question": "q"}]', "field 'db_id' must be text, not int"),
        (b'{"db_id": "x"}', "expected a JSON list of questions"),
    ],
)
def test_bis_questions(bis: Path, tmp_path: Path, content: bytes, message: str) -> None:
    (bis / "questions_dataset_2.json").write_bytes(content)
    assert_user_error(cli("import", "bis", bis, "-o", tmp_path / "out"), message)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ([{"table_names_original": "cpu"}], "schema 0: field 'table_names_original'"),
        ([{"column_names_original": [[0]]}], "schema 0: field 'column_names_original.0.1'"),
        ([{"foreign_keys": [["a", "b"]]}], "schema 0: field 'foreign_keys.0.0'"),
        ([7], "schema 0: field '(top level)'"),
        ("tables", "expected a list of schema objects"),
    ],
)
def test_bis_malformed_tables(bis: Path, tmp_path: Path, schema: object, message: str) -> None:
    (bis / "tables_dataset_2.json").write_text(json.dumps(schema), encoding="utf-8")
    assert_user_error(cli("import", "bis", bis, "-o", tmp_path / "out"), message)


def test_bis_schema_indexes_out_of_range_are_ignored(bis: Path) -> None:
    schema = {
        "db_id": "dataset_2",
        "table_names_original": ["cpu"],
        "table_names": [],
        "column_names_original": [[-1, "*"], [0, "ip"], [5, "ghost"]],
        "column_names": [[0, "ip"]],
        "column_types": ["text"],
        "foreign_keys": [[1, 99], [-1, 1], [1, 2]],
    }
    (bis / "tables_dataset_2.json").write_text(json.dumps([schema]), encoding="utf-8")
    description = import_bis(bis).databases["dataset_2"].description or ""
    assert "- cpu: ip" in description and "ghost" not in description


def bibench_file(tmp_path: Path, **changes: object) -> Path:
    item = {"Query ID": 1, "Natural Language Query": "Total sales?", "Category": "Descriptive", "Domain": "Retail"}
    path = tmp_path / "Descriptive.json"
    path.write_text(json.dumps([{**item, **changes}]), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"Table(s) Used": 7}, "field 'Table(s) Used' must be table names"),
        ({"Table(s) Used": [1, 2]}, "field 'Table(s) Used' must be table names"),
        ({"Query ID": {"a": 1}}, "field 'Query ID' must be text, not dict"),
        ({"Natural Language Query": None}, "missing field 'Natural Language Query'"),
        ({"Domain": ["Retail"]}, "field 'Domain' must be text, not list"),
    ],
)
def test_bibench_fields(tmp_path: Path, changes: dict, message: str) -> None:
    path = bibench_file(tmp_path, **changes)
    assert_user_error(cli("import", "bibench", path, "-o", tmp_path / "out"), message)


def test_bibench_text_problems(tmp_path: Path) -> None:
    path = tmp_path / "Descriptive.json"
    path.write_bytes(b"\xff\xfe[]")
    assert_user_error(cli("import", "bibench", path, "-o", tmp_path / "out"), "not UTF-8 text")
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(FormatError, match="nested too deeply"):
        import_bibench(path)
    path.write_text(f'[{{"Query ID": {HUGE}}}]', encoding="utf-8")
    with pytest.raises(FormatError, match="4300 digits"):
        import_bibench(path)
    path.write_bytes(b'\xef\xbb\xbf[{"Query ID": 1, "Natural Language Query": "With a byte-order mark?"}]')
    assert import_bibench(path).questions[0].text == "With a byte-order mark?"


@pytest.fixture
def spider(tmp_path: Path, sales_db: Path) -> Path:
    folder = tmp_path / "database" / "shop"
    folder.mkdir(parents=True)
    shutil.copy(sales_db, folder / "shop.sqlite")
    return folder.parent


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": "a", "question": "q1", "db_id": "shop"}', '{"id": "a", "question": "q2", "db_id": "shop"}'],
         "line 2: id 'a' repeats line 1"),
        (['{"question": "q1", "db_id": "shop", "query": 5}'], "field 'query' must be SQL text"),
        (['{"question": "q1", "db_id": "shop"}', "{"], "line 2: invalid JSON"),
        ([f'{{"question": "q1", "db_id": {HUGE}}}'], "line 1: invalid JSON: Exceeds the limit"),
        ([DEEP], "line 1: invalid JSON: nested too deeply"),
    ],
)  # fmt: skip
def test_dbqa_lines(tmp_path: Path, spider: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert_user_error(cli("import", "dbqa", path, "--databases", spider, "-o", tmp_path / "out"), message)


def test_dbqa_bad_utf8_and_a_database_that_is_not_sqlite(tmp_path: Path, spider: Path) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_bytes(b'{"question": "ok", "db_id": "shop"}\n{"question": "caf\xe9", "db_id": "shop"}\n')
    with pytest.raises(FormatError, match=r"qa\.jsonl line 2: not UTF-8 text"):
        import_dbqa(path, databases=spider)
    (spider / "csv").mkdir()
    (spider / "csv" / "csv.sqlite").write_text("a,b\n1,2\n", encoding="utf-8")
    path.write_text('{"question": "q", "db_id": "csv"}\n', encoding="utf-8")
    assert_user_error(
        cli("import", "dbqa", path, "--databases", spider, "-o", tmp_path / "out"), "not an SQLite database"
    )


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path) -> Path:
    benchmark = Benchmark(
        name="shop",
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[Question(id="q1", text="How many?", database="sales", gold_sql=["SELECT count(*) FROM sales"])],
    )
    return save_benchmark(benchmark, tmp_path / "shop")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: shop\nnow: 2023-13-45\n", "field 'now'"),
        (f"name: shop\nformat_version: {HUGE}\n", "4300 digits"),
        ("name: " + "[" * 20_000 + "]" * 20_000 + "\n", "benchmark.yaml"),
        ("name: [unclosed\n", "benchmark.yaml line"),
        ("- a list\n", "expected a mapping"),
    ],
)
def test_benchmark_yaml(bench: Path, text: str, message: str) -> None:
    (bench / "benchmark.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=message.replace("(", r"\(")):
        load_benchmark(bench)


def test_benchmark_files_through_the_command_line(bench: Path, tmp_path: Path) -> None:
    head = (bench / "benchmark.yaml").read_text(encoding="utf-8")
    (bench / "benchmark.yaml").write_text(head + "now: 2023-13-45\n", encoding="utf-8")
    assert_user_error(biarena("run", bench, "--system", "gold", "-o", tmp_path / "r.run"), "field 'now'")
    (bench / "benchmark.yaml").write_bytes(head.encode() + b"knowledge: caf\xe9\n")
    assert_user_error(cli("run", bench, "--system", "gold", "-o", tmp_path / "r.run"), "not UTF-8 text")
    (bench / "benchmark.yaml").write_text(head, encoding="utf-8")
    (bench / "questions.jsonl").write_bytes(b'{"id": "q1", "text": "caf\xe9", "database": "sales"}\n')
    assert_user_error(
        cli("run", bench, "--system", "gold", "-o", tmp_path / "r.run"), "questions.jsonl line 1: not UTF-8"
    )
    (bench / "questions.jsonl").write_text(
        '{"id": "q1", "text": "t", "database": "sales", "now": "2023-13-45"}\n', encoding="utf-8"
    )
    assert_user_error(cli("run", bench, "--system", "gold", "-o", tmp_path / "r.run"), "line 1, field 'now'")
    assert not (tmp_path / "r.run").exists()
