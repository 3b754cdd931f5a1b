"""CORGI, BI-Bench and DB-QA importers on small fixture folders the tests create."""

import io
import json
import zipfile
from pathlib import Path

import pytest

from biarena.benchmarks import import_bibench, import_corgi, import_dbqa, load_benchmark
from biarena.errors import FormatError, NotFoundError
from tests.test_cli import assert_user_error, biarena

openpyxl = pytest.importorskip("openpyxl")


def workbook(path: Path, sheets: dict[str, list[tuple]], header: tuple = ("Number", "Question")) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        sheet.append(header)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


QUESTIONS = {
    "type2": [(1, "Why did revenue fall in March?"), (2, "Why do VIP customers order more?")],
    "type3": [(1, "What will revenue be next month?")],
    "type4": [(1, "How should we grow the loyal segment?")],
}


def vertical(root: Path, name: str, db: Path, packing: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    workbook(folder / f"{name}-questions.xlsx", QUESTIONS)
    (folder / f"{name}.txt").write_text(f"{name}: a business that sells things.", encoding="utf-8")
    data = db.read_bytes()
    if packing == "plain":
        (folder / f"{name}.db").write_bytes(data)
    elif packing == "zip":
        with zipfile.ZipFile(folder / f"{name}.db.zip", "w") as z:
            z.writestr(f"{name}.db", data)
    elif packing == "split":  # one archive cut into three pieces
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(f"{name}.db", data)
        blob = buffer.getvalue()
        third = len(blob) // 3 + 1
        for i in range(3):
            (folder / f"{name}-part{i + 1}.zip").write_bytes(blob[i * third : (i + 1) * third])
    elif packing == "zipped-pieces":  # each part a zip of one piece of the file
        half = len(data) // 2
        for i, piece in enumerate((data[:half], data[half:]), start=1):
            with zipfile.ZipFile(folder / f"{name}-part{i}.zip", "w") as z:
                z.writestr(f"{name}.db.{i:03d}", piece)
    return folder


def test_corgi_all_packings_and_a_missing_database(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    for name, packing in (("shop", "plain"), ("rental", "zip"), ("delivery", "split"), ("apps", "zipped-pieces")):
        vertical(root, name, sales_db, packing)
    missing = root / "lost"
    missing.mkdir()
    workbook(missing / "lost-questions.xlsx", QUESTIONS)
    with import_corgi(root) as imported:
        benchmark = imported.benchmark
        assert set(benchmark.databases) == {"shop", "rental", "delivery", "apps"}
        assert "lost" in imported.skipped
        for name, ref in benchmark.databases.items():
            assert Path(ref.path).read_bytes() == sales_db.read_bytes(), name
        extracted = Path(benchmark.databases["rental"].path)
    assert not extracted.exists()  # the work directory goes when the import ends
    ids = {q.id for q in benchmark.questions}
    assert "delivery/type3/1" in ids and len(benchmark.questions) == 16
    assert {lab for q in benchmark.questions for lab in q.labels} == {"corgi:type2", "corgi:type3", "corgi:type4"}
    assert "sells things" in (benchmark.knowledge or "")
    result = biarena("import", "corgi", root, "-o", tmp_path / "out")
    assert result.returncode == 0 and "vertical 'lost' skipped" in result.stderr
    assert len(load_benchmark(tmp_path / "out").questions) == 16


def test_corgi_malformed_sheet(tmp_path: Path, sales_db: Path) -> None:
    folder = vertical(tmp_path / "c", "shop", sales_db, "plain")
    workbook(folder / "shop-questions.xlsx", QUESTIONS, header=("No", "Text"))
    with pytest.raises(FormatError, match="sheet 'type2': no 'Number' column"), import_corgi(folder):
        pass
    assert_user_error(biarena("import", "corgi", folder, "-o", tmp_path / "out"), "no 'Number' column")
    (folder / "shop-questions.xlsx").write_bytes(b"not a workbook")
    assert_user_error(biarena("import", "corgi", folder, "-o", tmp_path / "out"), "not a readable xlsx")


def test_bibench(tmp_path: Path, sales_db: Path) -> None:
    folder = tmp_path / "bibench"
    folder.mkdir()
    items = [
        {
            "Query ID": i,
            "Natural Language Query": f"question {i}",
            "Category": "Diagnostic",
            "Table(s) Used": "sales, city",
            "Domain": "Retail",
            "Complexity": "Advanced",
        }
        for i in range(3)
    ]
    (folder / "Diagnostic.json").write_text(json.dumps(items), encoding="utf-8")
    (folder / "Descriptive.json").write_text(
        json.dumps([{**items[0], "Category": "Descriptive", "Complexity": "Simple"}]), encoding="utf-8"
    )
    benchmark = import_bibench(folder)
    assert len(benchmark.questions) == 4 and not benchmark.databases
    first = next(q for q in benchmark.questions if q.id == "diagnostic/0")
    assert first.labels == ["bibench:diagnostic/advanced"] and first.tables == ["sales", "city"]
    with_db = import_bibench(folder, databases={"Retail": str(sales_db)})
    assert with_db.databases["retail"].path == str(sales_db.resolve())
    (folder / "Broken.json").write_text('[{"Query ID": 1,', encoding="utf-8")
    with pytest.raises(FormatError, match=r"Broken\.json line 1"):
        import_bibench(folder)


def test_dbqa(tmp_path: Path, sales_db: Path) -> None:
    spider = tmp_path / "database" / "shop"
    spider.mkdir(parents=True)
    (spider / "shop.sqlite").write_bytes(sales_db.read_bytes())
    rows = [
        {"question": "Which city sells most?", "answer": "Paris leads.", "type": "Interpretive", "db_id": "shop"},
        {"question": "How many sales?", "answer": "400", "type": "conclusive", "db_id": "shop"},
    ]
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    benchmark = import_dbqa(path, databases=tmp_path / "database")
    assert [q.labels for q in benchmark.questions] == [["dbqa:interpretive"], ["dbqa:conclusive"]]
    assert benchmark.questions[1].reference_answer == "400"
    path.write_text(json.dumps({**rows[0], "db_id": "nowhere"}), encoding="utf-8")
    with pytest.raises(NotFoundError, match="no database"):
        import_dbqa(path, databases=tmp_path / "database")
