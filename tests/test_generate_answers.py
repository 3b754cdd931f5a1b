"""`generate answers`: Conjecture-Construct-Conclude with scripted models, over copies of the source database."""

import json
import sqlite3
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.generate.cca import generate_cca_answers, unsupported_evidence
from biarena.generate.cca.staging import stage_as_sqlite
from biarena.generate.cca.synthetic import ConstructError, RowInsert, parse_inserts
from biarena.llm import ChatRequest, MockProvider, Model
from biarena.records import Benchmark, DatabaseRef, Question
from tests.cli_in_process import cli
from tests.conftest import sha256

CITIES = (
    "INSERT INTO city (city_id, name, country, population) VALUES (1, 'Dublin', 'IE', 500000), (2, 'Paris', 'FR', 2e6)"
)
PRODUCT = "INSERT INTO product VALUES (1, 'tea', 'drinks', 1.5)"
SALES = (
    "INSERT INTO sales (sale_id, day, city_id, product_id, qty, amount) "
    "VALUES (1, '2023-01-02', 1, 1, 3, 120.5), (2, '2023-01-03', 2, 1, 1, -20)"
)
ORPHAN = "INSERT INTO sales (sale_id, day, city_id, product_id, qty, amount) VALUES (9, '2023-01-04', 77, 1, 1, 5)"
TWICE = "INSERT INTO product VALUES (1, 'coffee', 'drinks', 4.0)"


def last_user(request: ChatRequest) -> str:
    return next(content for role, content in reversed(request.messages) if role == "user")


def annotator(request: ChatRequest) -> str:
    """Conjectures, constructs and concludes; q2's rows reuse a key, q3's refer to a missing city, q4 is malformed."""
    ask = last_user(request)
    if "Conjecture a plausible" in ask:
        return '{"answer": "Dublin had the highest revenue, 120.5 euros."}'
    if "Write INSERT statements" in ask:
        if "which product" in ask:
            return json.dumps({"statements": [CITIES, PRODUCT, TWICE]})
        if "orphan" in ask:
            return json.dumps({"statements": [CITIES, PRODUCT, ORPHAN]})
        if "malformed" in ask:
            return "INSERT INTO city VALUES (1, 'x', 'y', 2)"
        return json.dumps({"statements": [SALES, CITIES, PRODUCT]})  # children first: keys are checked at the end
    if "reference answer" in ask:
        if "How should we interpret" in ask:
            conclusion = {"answer": "Dublin did well.", "evidence": ["Dublin", "999"], "label": "interpretive"}
        else:
            conclusion = {
                "answer": "Dublin leads with 120.5; Paris is at -20.",
                "evidence": ["Dublin", "120.50", "-20"],
            }
            conclusion["label"] = "conclusive"
        return json.dumps(conclusion)
    return "not JSON"


@pytest.fixture
def source(tmp_path: Path, sales_db: Path) -> Path:
    """A benchmark of five questions over the sales database."""
    texts = {
        "q1": "Which city had the highest revenue?",
        "q2": "which product sold best?",
        "q3": "Which city is an orphan?",
        "q4": "A malformed construction?",
        "q5": "How should we interpret the city results?",
    }
    bench = Benchmark(
        name="shop",
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[
            Question(id=k, text=t, database="sales", labels=["bibench:descriptive/basic"], tables=["sales"])
            for k, t in texts.items()
        ],
    )
    return save_benchmark(bench, tmp_path / "shop")


def test_each_question_gets_its_own_database_and_a_checked_reference(source: Path, tmp_path: Path) -> None:
    original = source / "databases" / "sales.sqlite"
    before = sha256(original)
    out = tmp_path / "answers"
    said: list[str] = []
    model = Model(MockProvider([annotator], model="annotator"))
    result = generate_cca_answers(load_benchmark(source), out, model=model, say=said.append)
    assert sha256(original) == before  # the source is never written

    benchmark = load_benchmark(out)
    assert [q.id for q in benchmark.questions] == ["q1"]
    question = benchmark.questions[0]
    assert question.labels == ["dbqa:conclusive", "bibench:descriptive/basic"]
    assert question.reference_answer == "Dublin leads with 120.5; Paris is at -20."
    copy = Path(benchmark.database_location(question.database))
    assert copy.parent == out / "databases" and copy != original
    with sqlite3.connect(copy) as conn:  # the paper's synthetic database: the schema plus the injected rows
        assert conn.execute("SELECT count(*), sum(amount) FROM sales").fetchone() == (2, 100.5)
        assert conn.execute("SELECT count(*) FROM big").fetchone() == (0,)
    assert not (out / "work").exists()

    records = {r["id"]: r for r in map(json.loads, (out / "checks.jsonl").read_text().splitlines())}
    assert records["q1"]["rows_injected"] == {"sales": 2, "city": 2, "product": 1}
    assert records["q2"]["dropped_at"] == "execute"
    assert "UNIQUE constraint failed: product.product_id" in records["q2"]["reason"]
    assert records["q3"]["dropped_at"] == "execute" and "foreign key check failed" in records["q3"]["reason"]
    assert records["q4"]["dropped_at"] == "construct" and "no usable statements" in records["q4"]["reason"]
    assert records["q5"]["dropped_at"] == "conclude" and "'999' not among their values" in records["q5"]["reason"]
    assert any(line.startswith("dropped q2 at execute") for line in said)

    pipeline = json.loads((out / "pipeline.json").read_text())
    assert pipeline == result.pipeline and pipeline["complete"] is True
    assert pipeline["steps"]["execute"] == {
        "in": 4,
        "kept": 2,
        "dropped": 2,
        "corrected": 0,
        "dropped_by_reason": {"the injected rows break the database": 2},
    }
    assert pipeline["steps"]["construct"]["invalid_replies"] == 1
    assert pipeline["labels"] == {"conclusive": 1, "interpretive": 0}


def test_the_data_base_keeps_the_rows_and_shows_the_largest_keys(source: Path, tmp_path: Path) -> None:
    provider = MockProvider([annotator], model="annotator")
    bench = load_benchmark(source)
    bench.questions = bench.questions[:1]
    generate_cca_answers(bench, tmp_path / "a", model=Model(provider), base="data")
    construct = next(last_user(r) for r in provider.requests if "Write INSERT" in last_user(r))
    assert "sales.sale_id = 400" in construct and "city.city_id = 5" in construct
    # the data copy already holds cities 1 and 2: the same rows now break the primary key
    records = [json.loads(line) for line in (tmp_path / "a" / "checks.jsonl").read_text().splitlines()]
    assert records[0]["dropped_at"] == "execute" and "UNIQUE constraint failed" in records[0]["reason"]


def test_a_budget_stop_keeps_what_is_done_and_the_next_run_continues(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "a"
    first = generate_cca_answers(load_benchmark(source), out, model=Model(MockProvider([annotator])), max_calls=2)
    assert first.stopped and first.pipeline["complete"] is False and first.questions == []
    provider = MockProvider([annotator])
    second = generate_cca_answers(load_benchmark(source), out, model=Model(provider))
    assert [q.id for q in second.questions] == ["q1"] and second.pipeline["complete"] is True
    asked = [last_user(r) for r in provider.requests]
    # journaled: not asked again
    assert not any("Conjecture a plausible" in a and "highest revenue" in a for a in asked)


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("DELETE FROM city", "is not one INSERT statement"),
        ("INSERT INTO city VALUES (1, 'a', 'b', 2); DROP TABLE city", "is not one INSERT statement"),
        ("INSERT OR REPLACE INTO city VALUES (1, 'a', 'b', 2)", "a plain INSERT is needed"),
        ("INSERT INTO city SELECT * FROM city", "only INSERT ... VALUES"),
        ("INSERT INTO city VALUES (1, 'a', 'b', abs(2))", "only literal values"),
        ("INSERT INTO town VALUES (1)", "no table 'town'"),
        ("INSERT INTO city (city_id, mayor) VALUES (1, 'x')", "has no column 'mayor'"),
        ("INSERT INTO city VALUES (1, 'a')", "2 values for 4 columns"),
        ("INSERT INTO other.city VALUES (1, 'a', 'b', 2)", None),
    ],
)
def test_only_plain_inserts_of_literal_values_are_used(statement: str, problem: str | None) -> None:
    tables = {"city": ["city_id", "name", "country", "population"]}
    if problem is None:
        assert parse_inserts([statement], tables)[0].values == (1, "a", "b", 2)
        return
    with pytest.raises(ConstructError, match=problem.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.")):
        parse_inserts([statement], tables)


def test_cited_values_are_checked_against_the_injected_rows() -> None:
    rows = [RowInsert("sales", ("city", "amount"), ("Dublin", 1234.5))]
    assert unsupported_evidence(["dublin", "1,234.50", "$1234.5", "'Dublin'"], rows) == []
    assert unsupported_evidence(["Cork", "1234"], rows) == ["Cork", "1234"]


def test_the_command_line_annotates_and_refuses_bad_input(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import biarena.llm

    monkeypatch.setattr(biarena.llm, "get_model", lambda spec, **_: Model(MockProvider([annotator], model=spec)))
    out = tmp_path / "answers"
    result = cli("generate", "answers", source, "-o", out, "--model", "mock")
    assert result.returncode == 0, result.stderr
    assert "kept q1 (conclusive)" in result.stderr and "labels: conclusive 1, interpretive 0" in result.stderr
    assert "execute" in result.stdout
    audit = cli("audit", out)
    assert audit.returncode == 0 and "nothing to audit" in audit.stderr
    bad = cli("generate", "answers", source, "-o", tmp_path / "b", "--base", "rows")
    assert bad.returncode == 2 and "--base takes schema or data" in bad.stderr
    same = cli("generate", "answers", source, "-o", source)
    assert same.returncode == 2 and "another directory" in same.stderr


def _duckdb_copy(sqlite_path: Path, target: Path) -> Path:
    """The SQLite file's tables and rows in a DuckDB file (primary keys kept)."""
    duckdb = pytest.importorskip("duckdb")
    reader = sqlite3.connect(sqlite_path)
    writer = duckdb.connect(str(target))
    for (table,) in reader.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        info = reader.execute(f'SELECT name, type, pk FROM pragma_table_info("{table}")').fetchall()
        # SQLite's REAL is a double; DuckDB's is 4 bytes
        kinds = [(n, (t or "VARCHAR").replace("REAL", "DOUBLE"), pk) for n, t, pk in info]
        columns = ", ".join(f'"{n}" {t}' + (" PRIMARY KEY" if pk else "") for n, t, pk in kinds)
        writer.execute(f'CREATE TABLE "{table}" ({columns})')
        rows = reader.execute(f'SELECT * FROM "{table}"').fetchall()
        if rows:
            writer.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" for _ in info)})', rows)
    writer.close()
    reader.close()
    return target


def test_a_duckdb_or_server_source_is_copied_into_sqlite_for_the_rows(
    source: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The same annotation over the same tables in DuckDB and on PostgreSQL (the source is only read)."""
    bench = load_benchmark(source)
    bench.questions = bench.questions[:1]
    sqlite_path = Path(bench.database_location("sales"))
    _duckdb_copy(sqlite_path, source / "databases" / "sales.duckdb")
    locations = {"duckdb": DatabaseRef(path="databases/sales.duckdb", dialect="duckdb")}
    try:
        from biarena.db import copy_database
        from tests.postgres_server import create_database, create_read_only_role, postgres_bin, postgres_server

        if postgres_bin() is None:
            raise RuntimeError
        pytest.importorskip("psycopg")
        server = postgres_server()
        base = server.__enter__()
        request.addfinalizer(lambda: server.__exit__(None, None, None))
        copy_database(sqlite_path, create_database(base, "sales"))
        locations["postgres"] = DatabaseRef(url=create_read_only_role(base, "sales"), dialect="postgres")
    except RuntimeError:
        pass
    for name, ref in locations.items():
        other = bench.model_copy(update={"databases": {"sales": ref}})
        out = tmp_path / name
        generate_cca_answers(other, out, model=Model(MockProvider([annotator], model="annotator")))
        made = load_benchmark(out)
        assert [q.reference_answer for q in made.questions] == ["Dublin leads with 120.5; Paris is at -20."], name
        with sqlite3.connect(made.database_location(made.questions[0].database)) as conn:
            # the source's tables without their rows, plus the injected ones
            assert conn.execute("SELECT count(*), sum(amount) FROM sales").fetchone() == (2, 100.5), name
            assert conn.execute("SELECT count(*) FROM big").fetchone() == (0,), name
        staged = stage_as_sqlite(
            ref.url or str(source / "databases" / "sales.duckdb"), tmp_path / f"{name}.sqlite", with_rows=True
        )
        with sqlite3.connect(staged) as conn, sqlite3.connect(sqlite_path) as original:
            query = "SELECT * FROM sales ORDER BY sale_id"
            assert conn.execute(query).fetchall() == original.execute(query).fetchall(), name
