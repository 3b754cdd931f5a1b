"""The native benchmark format and the BIS importer."""

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from biarena.benchmarks import import_bis, load_benchmark, resolve_benchmark, save_benchmark
from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question


def test_bis_sample_import(bis_sample: Path, tmp_path: Path) -> None:
    benchmark = import_bis(bis_sample)
    assert benchmark.now == datetime(2023, 1, 17, 20, 20, 15)
    assert benchmark.source_format == "bis"
    assert [q.id for q in benchmark.questions][:3] == ["dataset_2/0000", "dataset_2/0001", "dataset_2/0002"]
    assert len(benchmark.questions) == 10
    first = benchmark.questions[0]
    assert first.labels == ["bis:filtering"] and first.language == "zh"
    assert first.gold_sql == ["select avg('cpu_util') from cpu where ip='10.11.110.1'"]
    assert {q.language for q in benchmark.questions} == {"zh", "en"}
    assert {q.category("bis") for q in benchmark.questions} == {"filtering", "time_period"}
    # the Spider-style schema names this database 'benchmark_2': matched by its tables
    assert "'cpu util'" in (benchmark.databases["dataset_2"].description or "")
    out = save_benchmark(benchmark, tmp_path / "bis")
    again = load_benchmark(out)
    assert again.questions == benchmark.questions
    assert again.now == benchmark.now
    assert Path(again.database_location("dataset_2")).is_file()


def test_bis_folder_of_datasets(bis_sample: Path, tmp_path: Path) -> None:
    root = tmp_path / "bis"
    for name in ("one", "two"):
        shutil.copytree(bis_sample, root / name)
    second = root / "two"
    (second / "dataset_2.sqlite3").rename(second / "dataset_3.sqlite3")
    questions = json.loads((second / "questions_dataset_2.json").read_text(encoding="utf-8"))
    for q in questions:
        q["db_id"] = "dataset_3"
    (second / "questions_dataset_2.json").write_text(json.dumps(questions), encoding="utf-8")
    benchmark = import_bis(root)
    assert set(benchmark.databases) == {"dataset_2", "dataset_3"}
    assert len(benchmark.questions) == 20
    assert benchmark.questions[-1].id == "dataset_3/0009"


def _copy_sample(bis_sample: Path, tmp_path: Path) -> Path:
    target = tmp_path / "sample"
    shutil.copytree(bis_sample, target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


def test_bis_corrupt_json_names_file_and_line(bis_sample: Path, tmp_path: Path) -> None:
    folder = _copy_sample(bis_sample, tmp_path)
    path = folder / "questions_dataset_2.json"
    path.write_text(path.read_text(encoding="utf-8")[:300], encoding="utf-8")
    with pytest.raises(FormatError, match=r"questions_dataset_2.json line \d+"):
        import_bis(folder)


def test_bis_missing_database(bis_sample: Path, tmp_path: Path) -> None:
    folder = _copy_sample(bis_sample, tmp_path)
    (folder / "dataset_2.sqlite3").unlink()
    with pytest.raises(NotFoundError, match="no database for db_id 'dataset_2'"):
        import_bis(folder)


def test_bis_missing_field(bis_sample: Path, tmp_path: Path) -> None:
    folder = _copy_sample(bis_sample, tmp_path)
    path = folder / "questions_dataset_2.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data[3]["query"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FormatError, match="question 3: missing field 'query'"):
        import_bis(folder)


def test_bis_no_questions(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no questions_"):
        import_bis(tmp_path)


def _native(tmp_path: Path, sales_db: Path) -> Path:
    benchmark = Benchmark(
        name="shop",
        now=datetime(2023, 1, 17),
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[
            Question(id="q1", text="How many sales?", database="sales", gold_sql=["SELECT count(*) FROM sales"])
        ],
    )
    return save_benchmark(benchmark, tmp_path / "shop")


def test_native_roundtrip_copies_databases(tmp_path: Path, sales_db: Path) -> None:
    out = _native(tmp_path, sales_db)
    assert (out / "databases" / "sales.sqlite").is_file()
    loaded = load_benchmark(out)
    assert loaded.questions[0].gold_sql == ["SELECT count(*) FROM sales"]
    assert loaded.root == out.resolve()


def test_native_refuses_to_overwrite(tmp_path: Path, sales_db: Path) -> None:
    out = _native(tmp_path, sales_db)
    before = (out / "questions.jsonl").read_bytes()
    with pytest.raises(FormatError, match="already exists"):
        save_benchmark(load_benchmark(out), out)
    assert (out / "questions.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "q2", "text": "x"', r"questions.jsonl line 2: invalid JSON"),
        ('{"id": "q2", "text": "x", "database": "sales", "gold_sql": "SELECT 1"}', r"line 2, field 'gold_sql'"),
        ('{"id": "q2", "database": "sales"}', r"line 2, field 'text'"),
        ('{"id": "q1", "text": "again", "database": "sales"}', r"line 2: field 'id': 'q1' repeats line 1"),
        ('{"id": "q2", "text": "x", "database": "nowhere"}', r"line 2: field 'database': unknown database"),
        ('{"id": "q2", "text": "x", "database": "sales", "colour": 1}', r"line 2, field 'colour'"),
    ],
)
def test_native_validation_names_file_line_field(tmp_path: Path, sales_db: Path, line: str, message: str) -> None:
    out = _native(tmp_path, sales_db)
    with (out / "questions.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    with pytest.raises(FormatError, match=message):
        load_benchmark(out)


def test_native_bad_yaml_and_missing_database(tmp_path: Path, sales_db: Path) -> None:
    out = _native(tmp_path, sales_db)
    (out / "databases" / "sales.sqlite").unlink()
    with pytest.raises(NotFoundError, match="database 'sales' file not found"):
        load_benchmark(out)
    (out / "benchmark.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"benchmark\.yaml line"):
        load_benchmark(out)


def test_unknown_builtin_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no benchmark directory or built-in benchmark named 'nope'"):
        resolve_benchmark("nope")


def test_a_changed_generator_builds_its_builtin_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from biarena.benchmarks import builtin
    from biarena.benchmarks.builtin import _fingerprint
    from biarena.version import __version__

    root = tmp_path / "biarena"
    (root / "generate").mkdir(parents=True)
    (root / "generate" / "forms.py").write_text("FORMS = 1\n")
    (root / "generate" / "notes.md").write_text("not code\n")
    monkeypatch.setattr(builtin, "PACKAGE_ROOT", root)
    before = _fingerprint("corgi-synth")
    assert before.startswith(f"corgi-synth-{__version__}-")
    (root / "generate" / "notes.md").write_text("edited, still not code\n")
    assert _fingerprint("corgi-synth") == before
    (root / "generate" / "forms.py").write_text("FORMS = 2\n")
    assert _fingerprint("corgi-synth") != before
