"""The template factory, bis-synth, and the gold audit."""

import hashlib
import json
import shutil
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from biarena.agents import make_system
from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.db import DatabasePool, open_database
from biarena.errors import FormatError
from biarena.generate.bis_synth import build
from biarena.generate.factory import generate_questions, latest_time
from biarena.generate.roles import load_roles
from biarena.generate.templates import CATEGORIES
from biarena.metrics import ScoringContext
from biarena.metrics.gold_audit import KINDS, audit_benchmark
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.runner import RunStore, make_spec, open_run, run_benchmark
from biarena.scoring import default_scorers, score_run, setup_scorers
from tests.conftest import SALES_ROLES


def test_bis_synth_shape(bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    assert len(benchmark.questions) >= 200
    assert benchmark.now == datetime(2023, 1, 17, 20, 20, 15)
    categories = Counter(q.category("bis") for q in benchmark.questions)
    assert set(categories) == set(CATEGORIES)
    assert {q.language for q in benchmark.questions} == {"en", "zh"}
    texts = [q.text for q in benchmark.questions]
    assert any("上周" in t for t in texts) and any("last" in t and "days" in t for t in texts)
    assert any("recently" in t for t in texts) and any(t.startswith("平均 C") for t in texts)
    # mixed Chinese with English abbreviations, as BIS's "平均 CVR 是多少"
    assert any("CVR" in t or "CTR" in t for t in texts if any("\u4e00" <= c <= "\u9fff" for c in t))
    with open_database(bis_synth_dir / "databases" / "ads.sqlite") as db:
        first, last = db.execute("SELECT min(ts), max(ts) FROM metric_log").rows[0]
        assert first == "2023-01-02 00:00:00" and last == "2023-01-17 20:00:00"
        assert datetime.fromisoformat(first).weekday() == 0  # the first day of a week is Monday
        assert db.execute("SELECT count(*) FROM metadata_mapping WHERE category = 'filter_key'").rows[0][0] >= 5


def test_gold_on_bis_synth_scores_one_on_every_metric(bis_synth_dir: Path, tmp_path: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    system = make_system("gold")
    pool = DatabasePool(benchmark)
    with RunStore(tmp_path / "gold.run", create=True) as store:
        open_run(store, make_spec("bis-synth", benchmark, system, benchmark.questions), benchmark.questions)
        run_benchmark(benchmark, system, store, pool, benchmark.questions)
        score_run(store, setup_scorers(default_scorers(), ScoringContext(benchmark=benchmark, databases=pool)))
        scores = store.scores()
    assert len({s.question_id for s in scores}) == len(benchmark.questions)
    for score in scores:
        if score.name != "valid_sql":
            assert score.value == 1.0, (score.question_id, score.name, score.rationale)


def test_same_seed_same_bytes_other_seed_other_data(tmp_path: Path) -> None:
    first, second, third = build(tmp_path / "a"), build(tmp_path / "b"), build(tmp_path / "c", seed=1)
    digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
    for name in ("databases/ads.sqlite", "databases/ops.sqlite", "questions.jsonl"):
        assert digest(tmp_path / "a" / name) == digest(tmp_path / "b" / name), name
    assert first.questions == second.questions
    assert digest(tmp_path / "a/databases/ads.sqlite") != digest(tmp_path / "c/databases/ads.sqlite")
    assert [q.gold_sql for q in first.questions] != [q.gold_sql for q in third.questions]


def test_factory_on_another_schema(tmp_path: Path, sales_db: Path) -> None:
    roles_path = tmp_path / "roles.yaml"
    roles_path.write_text(SALES_ROLES, encoding="utf-8")
    roles = load_roles(roles_path)
    with open_database(sales_db) as db:
        now = latest_time(db, roles)
        questions = generate_questions(db, roles, per_category=3, seed=5, now=now)
        found = Counter(q.category("bis") for q in questions)
        assert set(found) == set(CATEGORIES), found
        for question in questions:
            rows = db.execute(question.gold_sql[0], now=now).rows
            assert rows and any(v is not None for row in rows for v in row), question.id
    assert now == datetime(2023, 1, 17)


def test_roles_errors_name_the_field(tmp_path: Path) -> None:
    path = tmp_path / "roles.yaml"
    path.write_text(
        "database: x\nfacts:\n  - table: t\n    metrics:\n      - {column: a, names: {en: a}, "
        "aggregations: [median]}\n",
        encoding="utf-8",
    )
    with pytest.raises(FormatError, match=r"field 'facts\.0\.metrics\.0\.aggregations\.0'"):
        load_roles(path)


def planted_benchmark(tmp_path: Path, sales_db: Path) -> Benchmark:
    """A benchmark with one question per gold problem kind (and one sound question)."""
    q = lambda i, text, sql, **kw: Question(id=i, text=text, database="sales", gold_sql=[sql], **kw)  # noqa: E731
    questions = [
        q("sound", "How many sales?", "SELECT count(*) FROM sales"),
        q("fails", "Revenue by region?", "SELECT region, sum(amount) FROM sales GROUP BY region"),
        q(
            "empty",
            "Sales in Rome?",
            "SELECT * FROM sales s JOIN city c ON c.city_id = s.city_id WHERE c.name = 'Rome'",
        ),
        q("literal", "Average sale amount?", "SELECT avg('amount') FROM sales"),
        q(
            "ties",
            "Which 2 countries have the most cities?",
            "SELECT country, count(*) AS n FROM city GROUP BY country ORDER BY n DESC LIMIT 2",
        ),
        q("unordered", "What are the top 3 cities by population?", "SELECT name FROM city LIMIT 3"),
        q("para-1", "Total units sold?", "SELECT sum(qty) FROM sales", group="units"),
        q("para-2", "How many units were sold in total?", "SELECT count(qty) FROM sales", group="units"),
        q("clock", "What is the date today?", "SELECT date('now')"),
        q("tied-order", "Cities by country?", "SELECT name, country FROM city ORDER BY country"),
        q("null-order", "Cities by size?", "SELECT name, NULLIF(population, 592000) AS p FROM city ORDER BY p"),
    ]
    benchmark = Benchmark(name="planted", databases={"sales": DatabaseRef(path=str(sales_db))}, questions=questions)
    return load_benchmark(save_benchmark(benchmark, tmp_path / "planted"))


def test_audit_finds_every_planted_problem(tmp_path: Path, sales_db: Path) -> None:
    benchmark = planted_benchmark(tmp_path, sales_db)
    findings = audit_benchmark(benchmark, DatabasePool(benchmark))
    found = {(f.question_id, f.kind) for f in findings}
    expected = {
        ("fails", "gold_fails"),
        ("empty", "gold_empty"),
        ("literal", "string_aggregate"),
        ("ties", "limit_ties"),
        ("unordered", "top_without_order"),
        ("para-2", "phrasing_disagreement"),
        ("clock", "clock_dependent"),
        ("tied-order", "order_ties"),
        ("null-order", "order_nulls"),
    }
    assert expected <= found
    assert {kind for _, kind in expected} == set(KINDS)
    assert not [f for f in findings if f.question_id == "sound"]


def test_audit_finds_no_gold_problem_in_bis_synth(bis_synth_dir: Path) -> None:
    benchmark = load_benchmark(bis_synth_dir)
    findings = audit_benchmark(benchmark, DatabasePool(benchmark))
    assert findings == []
    # two hosts share the 0.74 maximum among the top 5: the address breaks the tie, so the row order is determined
    # (nulls last, as on every engine)
    tied = next(q for q in benchmark.questions if q.id == "ops/top_bottom/002/en")
    assert tied.gold_sql[0].rstrip().endswith("ORDER BY value DESC, ip NULLS LAST LIMIT 5"), tied.gold_sql


def test_audit_cli_exit_codes_and_json(tmp_path: Path, sales_db: Path, bis_synth_dir: Path) -> None:
    from tests.test_cli import biarena

    planted = planted_benchmark(tmp_path, sales_db)
    assert planted.root is not None
    result = biarena("audit", planted.root, "--json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload["by_kind"]["limit_ties"] == 1 and payload["problems"] >= 7
    clean = biarena("audit", "bis-synth")
    assert clean.returncode == 0, clean.stdout
    assert "0 of 234" in clean.stderr


def test_generate_and_build_commands(tmp_path: Path, sales_db: Path) -> None:
    from tests.test_cli import biarena

    roles = tmp_path / "roles.yaml"
    roles.write_text(SALES_ROLES, encoding="utf-8")
    out = tmp_path / "generated"
    result = biarena("generate", "templates", sales_db, "--roles", roles, "--per-category", "2", "-o", out)
    assert result.returncode == 0, result.stderr
    benchmark = load_benchmark(out)
    assert {q.category("bis") for q in benchmark.questions} == set(CATEGORIES)
    assert {q.language for q in benchmark.questions} == {"en", "zh"}
    only_en = tmp_path / "en"
    result = biarena("generate", "templates", sales_db, "--roles", roles, "--languages", "en", "-o", only_en)
    assert result.returncode == 0 and {q.language for q in load_benchmark(only_en).questions} == {"en"}
    built = tmp_path / "built"
    assert biarena("build", "bis-synth", "-o", built).returncode == 0
    assert len(load_benchmark(built).questions) >= 200
    again = biarena("build", "bis-synth", "-o", built)
    assert again.returncode == 2 and "not empty" in again.stderr
    shutil.rmtree(built)
