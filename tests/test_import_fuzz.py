"""Fuzzing every input door: exit 0, or exit 2 with one line; never a traceback; nothing changed outside -o."""

import io
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from unittest.mock import patch

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from biarena.benchmarks import save_benchmark
from biarena.records import Benchmark, DatabaseRef, Question
from tests.cli_in_process import cli
from tests.conftest import sha256
from tests.test_importers import QUESTIONS, workbook

FUZZ = settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
hostile_names = st.sampled_from(["../../evil", "/tmp/evil", "..", ".", "a/b", "", " ", "x\n[/y]", "dataset_2", "shop"])
texts = st.text(max_size=30) | st.sampled_from(["SELECT 1", "SELECT count(*) FROM sales", "DROP TABLE sales"])
dates = st.sampled_from(["2023-01-17", "2023-13-45", "2023-01-17 25:00", "auto", "1" * 5000]) | st.text(max_size=10)
nows = st.sampled_from([None, None, None, "auto", "2023-01-17 20:20:15"]) | dates


def field(values: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly plausible values, sometimes anything JSON can hold."""
    return st.one_of(values, values, values, json_values)


def encoded(value: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    """A JSON document of `value`, or (less often) a broken one: cut short, bad UTF-8, too deep, huge numbers."""
    breakages = {
        "plain": lambda b: st.just(b),
        "cut": lambda b: st.integers(0, len(b)).map(lambda n: b[:n]),
        "bad utf-8": lambda b: st.just(b.replace(b'"', b'"\xff', 1)),
        "deep": lambda b: st.just(b"[" * 3000 + b"]" * 3000),
        "huge number": lambda b: st.just(b'[{"db_id": ' + b"9" * 5000 + b"}]"),
        "bytes": lambda b: st.binary(max_size=40),
    }
    modes = st.sampled_from(["plain"] * 5 + [m for m in breakages if m != "plain"])
    return st.tuples(value.map(lambda v: json.dumps(v).encode()), modes).flatmap(lambda p: breakages[p[1]](p[0]))


def snapshot(root: Path, skip: Path) -> dict[str, str]:
    """Every file under `root` but outside `skip`, with its checksum (links by their target). The process's own
    scratch area for engine spill files (`biarena-sandbox-PID-*`, made once per process and removed when it exits)
    is not the command's output: an in-process command leaves it to the test process's exit."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path == skip or skip in path.parents:
            continue
        if any(part.startswith("biarena-sandbox-") for part in path.relative_to(root).parts):
            continue
        if path.is_symlink():
            found[str(path)] = "link:" + os.readlink(path)
        elif path.is_file():
            found[str(path)] = sha256(path)
        elif path.is_dir():
            found[str(path)] = "dir"
    return found


def check_door(workdir: Path, out: Path, *args: str | Path, verdicts: tuple[int, ...] = (0,)) -> None:
    """Run the command; assert the property every input door keeps (`verdicts`: exit codes that are answers)."""
    temp = workdir / "temp"
    temp.mkdir(exist_ok=True)
    before = snapshot(workdir, out)
    with patch.object(tempfile, "tempdir", str(temp)):
        result = cli(*args)  # an exception other than SystemExit escapes here and fails the test
    event(f"exit {result.returncode}")
    assert result.returncode in (*verdicts, 2), result.stderr
    if result.returncode == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(workdir, out) == before


def fresh(tmp_path: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp_path))


bis_question = st.fixed_dictionaries(
    {},
    optional={
        "db_id": field(hostile_names),
        "query": field(texts),
        "question": field(texts),
        "language": field(st.sampled_from(["en", "zh"])),
        "case_type": field(st.sampled_from(["filtering", "time_period"])),
    },
)
spider_entry = st.fixed_dictionaries(
    {},
    optional={
        "db_id": field(hostile_names),
        "table_names_original": field(st.lists(st.sampled_from(["cpu", "memory", "x"]), max_size=3)),
        "table_names": field(st.lists(st.text(max_size=5), max_size=3)),
        "column_names_original": field(st.lists(st.tuples(st.integers(-2, 4), st.text(max_size=5)), max_size=4)),
        "column_names": field(st.lists(st.tuples(st.integers(-2, 4), st.text(max_size=5)), max_size=4)),
        "column_types": field(st.lists(st.text(max_size=5), max_size=4)),
        "foreign_keys": field(st.lists(st.tuples(st.integers(-3, 9), st.integers(-3, 9)), max_size=3)),
    },
)


@FUZZ
@given(questions=encoded(st.lists(bis_question, max_size=4)), tables=encoded(st.lists(spider_entry, max_size=2)))
def test_bis_door(tmp_path: Path, bis_sample: Path, questions: bytes, tables: bytes) -> None:
    workdir = fresh(tmp_path)
    source = workdir / "bis"
    source.mkdir()
    shutil.copy(bis_sample / "dataset_2.sqlite3", source / "dataset_2.sqlite3")
    shutil.copy(bis_sample / "dataset_2.sqlite3", workdir / "evil.sqlite3")
    (source / "questions_dataset_2.json").write_bytes(questions)
    (source / "tables_dataset_2.json").write_bytes(tables)
    check_door(workdir, workdir / "out", "import", "bis", source, "-o", workdir / "out")


bibench_item = st.fixed_dictionaries(
    {},
    optional={
        "Query ID": field(st.integers(0, 3) | hostile_names),
        "Natural Language Query": field(texts),
        "Category": field(st.sampled_from(["Descriptive", "Diagnostic", "../x"])),
        "Table(s) Used": field(st.sampled_from(["sales, city", ""])),
        "Domain": field(st.sampled_from(["Retail", "Shop"])),
        "Complexity": field(st.sampled_from(["Simple", "Advanced"])),
    },
)
db_options = st.lists(
    st.sampled_from(["Retail=DB", "Retail=missing.sqlite", "Shop=DB", "Retail=/dev/null", "Retail=NOTDB", "Retail="]),
    max_size=2,
)


@FUZZ
@given(content=encoded(st.lists(bibench_item, max_size=4)), dbs=db_options, now=nows)
def test_bibench_door(tmp_path: Path, sales_db_template: Path, content: bytes, dbs: list[str], now: str | None) -> None:
    workdir = fresh(tmp_path)
    shutil.copy(sales_db_template, workdir / "sales.sqlite")
    (workdir / "notes.txt").write_text("not a database", encoding="utf-8")
    (workdir / "Descriptive.json").write_bytes(content)
    args: list[str | Path] = ["import", "bibench", workdir / "Descriptive.json", "-o", workdir / "out"]
    for value in dbs:
        args += [
            "--db",
            value.replace("=DB", f"={workdir / 'sales.sqlite'}").replace("NOTDB", str(workdir / "notes.txt")),
        ]
    if now is not None:
        args += ["--now", now]
    check_door(workdir, workdir / "out", *args)


dbqa_item = st.fixed_dictionaries(
    {},
    optional={
        "id": field(st.sampled_from(["a", "b"])),
        "question": field(texts),
        "answer": field(texts),
        "type": field(st.sampled_from(["conclusive", "interpretive"])),
        "db_id": field(hostile_names | st.sampled_from(["shop", "text", "linked"])),
        "query": field(texts),
    },
)
dbqa_line = st.one_of(dbqa_item.map(lambda v: json.dumps(v).encode()), encoded(json_values))


@FUZZ
@given(lines=st.lists(dbqa_line, max_size=4), now=nows)
def test_dbqa_door(tmp_path: Path, sales_db_template: Path, lines: list[bytes], now: str | None) -> None:
    workdir = fresh(tmp_path)
    spider = workdir / "database"
    for name in ("shop", "text", "linked"):
        (spider / name).mkdir(parents=True)
    shutil.copy(sales_db_template, spider / "shop" / "shop.sqlite")
    (spider / "text" / "text.sqlite").write_text("a,b", encoding="utf-8")
    shutil.copy(sales_db_template, workdir / "evil.sqlite")
    (spider / "linked" / "linked.sqlite").symlink_to(workdir / "evil.sqlite")
    (workdir / "qa.jsonl").write_bytes(b"\n".join(lines))
    args: list[str | Path] = ["import", "dbqa", workdir / "qa.jsonl", "--databases", spider, "-o", workdir / "out"]
    check_door(workdir, workdir / "out", *args, *(["--now", now] if now is not None else []))


csv_names = st.sampled_from(
    [
        *["data/notebooks/csvs/flag-1.csv"] * 6,
        "csvs/flag-1-sysuser.csv",
        "flag-1.csv",
        "csvs/link.csv",
        "csvs/folder.csv",
        "../../evil.csv",
        "/etc/passwd",
        "missing.csv",
    ]
)
good_csv = b"category,amount,opened_at\nHardware,335,2023-01-02 11:04:00\nSoftware,12.5,2023-01-03\n"
csv_bodies = st.sampled_from(
    [
        good_csv,
        good_csv,
        good_csv,
        b"\xef\xbb\xbfa,b\n1,2\n3\n4,5,6\n",
        b"a,a,,\n1,2,3,4\n",
        b"only_header\n",
        b"",
        b"\x00\xff\xfe binary",
        b'a,b\n"unterminated,1\n',
        b"x\n" + b"9" * 5000 + b"\n",
        b"when\n2023-13-45\n2023-01-17 25:00\n1e400\n",
    ]
) | st.binary(max_size=40)


def seldom_wrong(values: st.SearchStrategy) -> st.SearchStrategy:
    """Plausible values, now and then anything JSON can hold (a flag has many fields: most flags stay readable)."""
    return st.one_of(*[values] * 7, json_values)


ib_insight = st.fixed_dictionaries(
    {},
    optional={
        "insight": seldom_wrong(texts),
        "question": seldom_wrong(texts),
        "insight_value": json_values,
        "data_type": seldom_wrong(st.sampled_from(["descriptive", "Diagnostic", "time_series", "??"])),
        "actionable_insight": seldom_wrong(texts | st.fixed_dictionaries({"action": texts})),
        "plot": seldom_wrong(st.fixed_dictionaries({"description": texts})),
    },
)
ib_flag = st.fixed_dictionaries(
    {
        "dataset_csv_path": seldom_wrong(csv_names),
        "metadata": seldom_wrong(
            st.fixed_dictionaries(
                {"goal": st.sampled_from(["Find the discrepancy.", "x"]) | seldom_wrong(texts)},
                optional={
                    "role": seldom_wrong(texts),
                    "category": seldom_wrong(st.sampled_from(["Incidents Management.", "Asset Management", "x"])),
                    "header": seldom_wrong(texts),
                },
            )
        ),
    },
    optional={
        "user_dataset_csv_path": seldom_wrong(csv_names),
        "insight_list": seldom_wrong(st.lists(ib_insight, max_size=3)),
        "insights": seldom_wrong(st.lists(texts, max_size=3)),
        "summary": seldom_wrong(texts),
    },
)


@FUZZ
@given(
    flags=st.lists(
        st.one_of(*[ib_flag.map(lambda v: json.dumps(v).encode())] * 2, encoded(ib_flag)), min_size=1, max_size=2
    ),
    main=csv_bodies,
    users=csv_bodies,
    options=st.lists(st.sampled_from(["flags=1", "flags=9", "flags=x", "engine=duckdb", "engine=mysql"]), max_size=1),
    now=st.one_of(st.none(), st.none(), nows),
)
def test_insightbench_door(
    tmp_path: Path, flags: list[bytes], main: bytes, users: bytes, options: list[str], now: str | None
) -> None:
    workdir = fresh(tmp_path)
    notebooks = workdir / "repo" / "data" / "notebooks"
    (notebooks / "csvs" / "folder.csv").mkdir(parents=True)
    for number, content in enumerate(flags, start=1):
        (notebooks / f"flag-{number}.json").write_bytes(content)
    (notebooks / "csvs" / "flag-1.csv").write_bytes(main)
    (notebooks / "csvs" / "flag-1-sysuser.csv").write_bytes(users)
    (workdir / "evil.csv").write_bytes(b"secret,1\n")
    (notebooks / "csvs" / "link.csv").symlink_to(workdir / "evil.csv")
    args: list[str | Path] = ["import", "insightbench", workdir / "repo", "-o", workdir / "out"]
    for option in options:
        args += ["-O", option]
    check_door(workdir, workdir / "out", *args, *(["--now", now] if now is not None else []))


packings = st.sampled_from(
    ["plain", "zip", "pieces", "cut", "garbage-db", "garbage-zip", "bomb", "link", "part3", "none"]
)


def pack(folder: Path, name: str, db: Path, packing: str, outside: Path) -> None:
    data = db.read_bytes()
    if packing == "plain":
        (folder / f"{name}.db").write_bytes(data)
    elif packing == "zip":
        with zipfile.ZipFile(folder / f"{name}.db.zip", "w") as zipped:
            zipped.writestr(f"{name}.db", data)
    elif packing == "pieces":
        for number, piece in enumerate((data[:1000], data[1000:]), start=1):
            with zipfile.ZipFile(folder / f"{name}-part{number}.zip", "w") as zipped:
                zipped.writestr(f"{name}.db.{number:03d}", piece)
    elif packing in ("cut", "part3"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
            zipped.writestr(f"{name}.db", data)
        blob = buffer.getvalue()
        third = len(blob) // 3 + 1
        for number in (1, 2, 3) if packing == "cut" else (3,):
            (folder / f"{name}-part{number}.zip").write_bytes(blob[(number - 1) * third : number * third])
    elif packing == "garbage-db":
        (folder / f"{name}.db").write_bytes(b"\x00garbage" * 10)
    elif packing == "garbage-zip":
        (folder / f"{name}.db.zip").write_bytes(b"PK")
    elif packing == "bomb":
        with zipfile.ZipFile(folder / f"{name}.db.zip", "w", zipfile.ZIP_DEFLATED) as zipped:
            zipped.writestr(f"{name}.db", b"SQLite format 3\x00" + bytes(3 * 1024**2))
    elif packing == "link":
        (folder / f"{name}.db").symlink_to(outside)


@FUZZ
@given(
    verticals=st.lists(
        st.tuples(st.sampled_from(["shop", "app-store", "e-commerce-enablement"]), packings), min_size=1, max_size=3
    ),
    broken_book=st.sampled_from([False, False, False, True]),
    description=st.sampled_from([b"A shop.", b"caf\xc3\xa9", b""]) | st.binary(max_size=20),
    now=nows,
    max_size=st.sampled_from([None, None, None, "1MB", "2MiB", "0", "lots"]),
)
def test_corgi_door(
    tmp_path: Path,
    sales_db_template: Path,
    verticals: list[tuple[str, str]],
    broken_book: bool,
    description: bytes,
    now: str | None,
    max_size: str | None,
) -> None:
    pytest.importorskip("openpyxl")
    workdir = fresh(tmp_path)
    outside = workdir / "secret.db"
    shutil.copy(sales_db_template, outside)
    root = workdir / "corgi"
    root.mkdir()
    for name, packing in verticals:
        folder = root / name
        if folder.exists():
            continue
        folder.mkdir()
        workbook(folder / f"{name}-questions.xlsx", QUESTIONS)
        if broken_book:
            (folder / f"{name}-questions.xlsx").write_bytes(b"PK\x03\x04 not really")
            broken_book = False
        (folder / f"{name}.txt").write_bytes(description)
        pack(folder, name, sales_db_template, packing, outside)
    args: list[str | Path] = ["import", "corgi", root, "-o", workdir / "out"]
    args += ["--now", now] if now is not None else []
    args += ["--max-db-size", max_size] if max_size is not None else []
    check_door(workdir, workdir / "out", *args)


def bench_dir(workdir: Path, db: Path) -> Path:
    benchmark = Benchmark(
        name="shop",
        databases={"sales": DatabaseRef(path=str(db))},
        questions=[Question(id="q1", text="How many?", database="sales", gold_sql=["SELECT count(*) FROM sales"])],
    )
    bench = save_benchmark(benchmark, workdir / "bench")
    shutil.copy(db, workdir / "secret.sqlite")
    (bench / "databases" / "link.sqlite").symlink_to(workdir / "secret.sqlite")
    return bench


database_refs = st.fixed_dictionaries(
    {},
    optional={
        "path": field(
            st.sampled_from(
                ["databases/sales.sqlite", "databases/link.sqlite", "../secret.sqlite", "/etc/passwd", "databases", ""]
            )
        ),
        "url": field(st.sampled_from(["sqlite:///../secret.sqlite", "duckdb:///x.duckdb", "nonsense"])),
        "dialect": field(st.sampled_from(["sqlite", "postgres"])),
        "now": field(dates),
    },
)
heads = st.fixed_dictionaries(
    {"name": field(st.just("shop"))},
    optional={
        "now": field(dates),
        "databases": field(st.dictionaries(st.sampled_from(["sales", "other"]), database_refs, max_size=2)),
        "format_version": field(st.integers()),
        "knowledge": field(texts),
        "questions": json_values,
    },
)
question_rows = st.fixed_dictionaries(
    {},
    optional={
        "id": field(st.sampled_from(["q1", "q2"])),
        "text": field(texts),
        "database": field(st.sampled_from(["sales", "other"])),
        "gold_sql": field(st.lists(texts, max_size=2)),
        "now": field(dates),
        "labels": field(st.lists(st.text(max_size=5), max_size=2)),
    },
)
yaml_texts = st.one_of(
    heads.map(lambda h: yaml.safe_dump(h, allow_unicode=True).encode()),
    st.binary(max_size=60),
    st.sampled_from(
        [
            b"name: " + b"[" * 3000 + b"]" * 3000,  # parsing it takes seconds: one case among several
            b"name: shop\nnow: 2023-13-45\n",
            b"name: shop\nformat_version: " + b"7" * 5000 + b"\n",
            b"name: shop\ndatabases: {sales: {path: databases/link.sqlite}}\n",
            b"name: shop\ndatabases: {sales: {path: ../secret.sqlite}}\n",
            b"name: shop\n\x00",
        ]
    ),
)
jsonl_texts = st.lists(st.one_of(question_rows.map(lambda q: json.dumps(q).encode()), encoded(json_values)), max_size=3)


@FUZZ
@given(head=st.none() | yaml_texts, lines=st.none() | jsonl_texts)
def test_benchmark_files_door(
    tmp_path: Path, sales_db_template: Path, head: bytes | None, lines: list[bytes] | None
) -> None:
    workdir = fresh(tmp_path)
    bench = bench_dir(workdir, sales_db_template)
    if head is not None:
        (bench / "benchmark.yaml").write_bytes(head)
    if lines is not None:
        (bench / "questions.jsonl").write_bytes(b"\n".join(lines))
    out = workdir / "out"
    # `run` exits 1 when no answer ran: its verdict on the system, not a problem with the input
    check_door(workdir, out, "run", bench, "--system", "gold", "-o", out / "r.run", verdicts=(0, 1))
