"""Every path derived from input stays inside its directory; outputs are written whole, with usual permissions."""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from biarena.benchmarks import import_bis, load_benchmark, save_benchmark
from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question
from tests.cli_in_process import cli
from tests.conftest import sha256
from tests.test_cli import assert_user_error, biarena


def snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` (links included) with its checksum."""
    return {
        str(p.relative_to(root)): ("link:" + os.readlink(p)) if p.is_symlink() else sha256(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def bis_copy(bis_sample: Path, target: Path, db_id: str) -> Path:
    """The BIS sample with every question's db_id replaced."""
    shutil.copytree(bis_sample, target)
    path = target / "questions_dataset_2.json"
    questions = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps([{**q, "db_id": db_id} for q in questions]), encoding="utf-8")
    return target


@pytest.mark.parametrize("db_id", ["../../../evil", "../dataset_2", "/tmp/evil", "a/b", ".."])
def test_bis_db_id_cannot_leave_the_folder(bis_sample: Path, tmp_path: Path, db_id: str) -> None:
    deep = tmp_path / "one" / "two"
    source = bis_copy(bis_sample, deep / "bis", db_id)
    shutil.copy(source / "dataset_2.sqlite3", tmp_path / "evil.sqlite3")
    before = snapshot(tmp_path)
    result = cli("import", "bis", source, "-o", deep / "out")
    assert_user_error(result, "field 'db_id'")
    assert "is not a plain name" in result.stderr
    assert snapshot(tmp_path) == before


def test_bis_database_link_out_is_refused(bis_sample: Path, tmp_path: Path) -> None:
    source = tmp_path / "bis"
    source.mkdir()
    for name in ("questions_dataset_2.json", "tables_dataset_2.json"):
        shutil.copy(bis_sample / name, source / name)
    outside = tmp_path / "elsewhere.sqlite3"
    shutil.copy(bis_sample / "dataset_2.sqlite3", outside)
    (source / "dataset_2.sqlite3").symlink_to(outside)
    with pytest.raises(FormatError, match=r"is a link to .*outside"):
        import_bis(source)
    # a link that stays inside the folder given is fine
    (source / "dataset_2.sqlite3").unlink()
    shutil.copy(outside, source / "real.sqlite3")
    (source / "dataset_2.sqlite3").symlink_to(source / "real.sqlite3")
    assert import_bis(source).databases["dataset_2"].path == str((source / "real.sqlite3").resolve())


def test_dbqa_db_id_cannot_leave_the_folder(tmp_path: Path, sales_db: Path) -> None:
    spider = tmp_path / "database"
    (spider / "shop").mkdir(parents=True)
    shutil.copy(sales_db, spider / "shop" / "shop.sqlite")
    shutil.copy(sales_db, tmp_path / "evil.sqlite")
    questions = tmp_path / "qa.jsonl"
    questions.write_text(json.dumps({"question": "How many?", "db_id": "../evil"}) + "\n", encoding="utf-8")
    before = snapshot(tmp_path)
    result = cli("import", "dbqa", questions, "--databases", spider, "-o", tmp_path / "out")
    assert_user_error(result, "is not a plain name")
    assert snapshot(tmp_path) == before
    (spider / "linked").mkdir()
    (spider / "linked" / "linked.sqlite").symlink_to(tmp_path / "evil.sqlite")
    questions.write_text(json.dumps({"question": "How many?", "db_id": "linked"}) + "\n", encoding="utf-8")
    assert_user_error(cli("import", "dbqa", questions, "--databases", spider, "-o", tmp_path / "o"), "is a link to")


def native(tmp_path: Path, sales_db: Path) -> Path:
    benchmark = Benchmark(
        name="shop",
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[Question(id="q1", text="How many?", database="sales", gold_sql=["SELECT count(*) FROM sales"])],
    )
    return save_benchmark(benchmark, tmp_path / "shop")


def set_database(bench: Path, **ref: str) -> None:
    head = yaml.safe_load((bench / "benchmark.yaml").read_text(encoding="utf-8"))
    head["databases"]["sales"] = ref
    (bench / "benchmark.yaml").write_text(yaml.safe_dump(head), encoding="utf-8")


def test_benchmark_database_paths_stay_inside(tmp_path: Path, sales_db: Path) -> None:
    bench = native(tmp_path, sales_db)
    outside = tmp_path / "outside.sqlite"
    shutil.copy(sales_db, outside)
    for path in ("../outside.sqlite", str(outside), "databases/../../outside.sqlite"):
        set_database(bench, path=path)
        with pytest.raises(FormatError, match=r"absolute path|leads to"):
            load_benchmark(bench)
    (bench / "databases" / "link.sqlite").symlink_to(outside)
    set_database(bench, path="databases/link.sqlite")
    with pytest.raises(FormatError, match=r"is a link to .*outside"):
        load_benchmark(bench)
    (bench / "databases" / "out").symlink_to(tmp_path)
    set_database(bench, path="databases/out/outside.sqlite")
    with pytest.raises(FormatError, match=r"leads to .*outside"):
        load_benchmark(bench)
    set_database(bench, url=f"sqlite:///{outside}")
    with pytest.raises(FormatError, match="names a file"):
        load_benchmark(bench)
    set_database(bench, url="postgresql+psycopg://reader@db.example/sales")
    assert load_benchmark(bench).database_location("sales").startswith("postgresql")
    set_database(bench, path="databases/link.sqlite")
    result = biarena("run", bench, "--system", "gold", "-o", tmp_path / "r.run")
    assert_user_error(result, "is a link to")
    assert not (tmp_path / "r.run").exists()


def test_a_loaded_benchmark_reads_only_inside(tmp_path: Path, sales_db: Path) -> None:
    bench = load_benchmark(native(tmp_path, sales_db))
    bench.databases["sales"] = DatabaseRef(path="../../etc/passwd")
    with pytest.raises(FormatError, match="leads outside the benchmark directory"):
        bench.database_location("sales")


def test_database_names_never_become_paths(tmp_path: Path, sales_db: Path) -> None:
    names = ["../../evil", "/abs/olute", "a/b", "..", "dup", "DUP", "spaced name", "日本"]
    benchmark = Benchmark(
        name="odd",
        databases={name: DatabaseRef(path=str(sales_db)) for name in names},
        questions=[Question(id=f"q{i}", text="?", database=name) for i, name in enumerate(names)],
    )
    before = snapshot(tmp_path)
    out = save_benchmark(benchmark, tmp_path / "deep" / "out")
    created = {k for k in snapshot(tmp_path) if k not in before}
    assert all(k.startswith("deep/out/") for k in created), created
    files = sorted(p.name for p in (out / "databases").iterdir())
    assert len(files) == len(names)
    loaded = load_benchmark(out)
    assert set(loaded.databases) == set(names)
    for name in names:
        assert Path(loaded.database_location(name)).parent == (out / "databases").resolve()


def test_sources_that_are_not_databases_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("hello", encoding="utf-8")
    for source, message in ((text, "not an SQLite or DuckDB database"), (tmp_path, "not a regular file")):
        benchmark = Benchmark(name="x", databases={"d": DatabaseRef(path=str(source))})
        with pytest.raises(FormatError, match=message):
            save_benchmark(benchmark, tmp_path / "out")
        assert not (tmp_path / "out").exists()
    benchmark = Benchmark(name="x", databases={"d": DatabaseRef(path=str(tmp_path / "missing.sqlite"))})
    with pytest.raises(NotFoundError, match="file not found"):
        save_benchmark(benchmark, tmp_path / "out")


def test_output_must_be_a_place_for_a_benchmark(bis_sample: Path, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep me", encoding="utf-8")
    assert_user_error(cli("import", "bis", bis_sample, "-o", afile / "x"), "is not a directory")
    assert_user_error(cli("import", "bis", bis_sample, "-o", afile), "exists and is not a directory")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert_user_error(cli("import", "bis", bis_sample, "-o", folder), "already exists and is not empty")
    assert_user_error(cli("import", "bis", bis_sample, "-o", folder, "--force"), "not a benchmark directory")
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert afile.read_text(encoding="utf-8") == "keep me"
    out = tmp_path / "bench"
    assert cli("import", "bis", bis_sample, "-o", out).returncode == 0
    result = cli("import", "bis", bis_sample, "-o", out, "--force", "--now", "2024-02-01")
    assert result.returncode == 0, result.stderr
    assert str(load_benchmark(out).now) == "2024-02-01 00:00:00"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "bench", "folder"]


def test_bibench_missing_database_is_one_line(tmp_path: Path) -> None:
    questions = tmp_path / "Descriptive.json"
    item = {"Query ID": 1, "Natural Language Query": "Sales?", "Domain": "Retail"}
    questions.write_text(json.dumps([item]), encoding="utf-8")
    result = cli("import", "bibench", questions, "--db", "Retail=missing.sqlite", "-o", tmp_path / "out")
    assert_user_error(result, "missing.sqlite: file not found")
    result = cli("import", "bibench", questions, "--db", "Retail=/dev/null", "-o", tmp_path / "out")
    assert_user_error(result, "not a regular file")
    result = cli("import", "bibench", questions, "--db", "Shop=x.sqlite", "-o", tmp_path / "out")
    assert_user_error(result, "no question has domain 'Shop'")


def modes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): stat.filemode(p.stat().st_mode) for p in [root, *root.rglob("*")]}


def test_outputs_follow_the_umask(bis_sample: Path, tmp_path: Path, sales_db: Path) -> None:
    from tests.test_importers import vertical

    pytest.importorskip("openpyxl")
    vertical(tmp_path / "corgi", "shop", sales_db, "zip")
    for command in (["bis", bis_sample], ["corgi", tmp_path / "corgi"]):
        out = tmp_path / f"out-{command[0]}"
        result = subprocess.run(
            [sys.executable, "-m", "biarena", "import", *map(str, command), "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=lambda: os.umask(0o022),
            check=False,
        )
        assert result.returncode == 0, result.stderr
        found = modes(out)
        assert {m for m in found.values() if m.startswith("d")} == {"drwxr-xr-x"}, found
        assert {m for m in found.values() if m.startswith("-")} == {"-rw-r--r--"}, found
