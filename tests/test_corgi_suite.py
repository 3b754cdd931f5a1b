"""The CORGI suite: four question types per vertical, references tied to the simulator's rules and planted events."""

import calendar
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.synth import vertical_spec
from tests.test_cli import assert_user_error, biarena

VERTICALS = ("food_delivery", "app_store")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corgi") / "suite"
    result = biarena("suite", "corgi", "--verticals", ",".join(VERTICALS), "--scale", "0.2", "-o", out)
    assert result.returncode == 0, result.stderr
    return out


def test_every_vertical_has_thirty_questions_of_each_type(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    assert set(benchmark.databases) == set(VERTICALS)
    counts = Counter((q.database, label) for q in benchmark.questions for label in q.labels if "corgi:type" in label)
    for name in VERTICALS:
        for kind in ("type1", "type2", "type3", "type4"):
            assert counts[(name, f"corgi:{kind}")] >= 30, (name, kind)
    for question in benchmark.questions:
        if "corgi:type1" in question.labels:
            assert question.gold_sql and not question.reference_answer
        else:
            assert question.reference_answer and not question.gold_sql
        assert question.now == vertical_spec(question.database).anchor
    assert len({q.id for q in benchmark.questions}) == len(benchmark.questions)


def test_planted_events_are_explained_by_their_cause(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    for name in VERTICALS:
        spec = vertical_spec(name)
        planted = [q for q in benchmark.questions if q.database == name and "corgi:planted" in q.labels]
        direct = [q for q in planted if {"corgi:form:planted-why", "corgi:form:planted-shift-why"} & set(q.labels)]
        assert [q.reference_answer.split(" Evidence (hidden parameters): ")[0] for q in direct] == [
            p.explanation for p in spec.planted
        ]
        for question, event in zip(direct, spec.planted, strict=True):
            assert f"planted event '{event.name}'" in question.reference_answer
            assert event.start.isoformat() not in question.text and f"'{event.value}'" not in question.text
            assert event.column not in question.text.split() or event.column in (event.noun or "")
        assert all("corgi:type2" in q.labels and q.text.startswith(("Why", "What")) for q in planted)
        assert any("corgi:form:propagation-why" in q.labels for q in planted)  # events carry into dependent tables
        # the cause is in the data the system sees, and the generator's metadata (which holds the spec) is not
        conn = sqlite3.connect(benchmark.database_location(name))
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "_biarena_synth" not in tables and set(spec.tables) <= tables
        for event in spec.planted:
            row = event.cause["row"]
            where = " AND ".join(f'"{k}" = ?' for k in row)
            cause = f'SELECT count(*) FROM "{event.cause["table"]}" WHERE {where}'
            assert conn.execute(cause, list(row.values())).fetchone()[0] == 1
        assert " ".join(spec.public.description.split())[:60] in (benchmark.databases[name].description or "")


def test_gold_answers_every_descriptive_question(suite: Path, tmp_path: Path) -> None:
    run, exported = tmp_path / "gold.run", tmp_path / "gold.jsonl"
    assert biarena("run", suite, "--system", "gold", "-o", run).returncode == 0
    assert biarena("score", run).returncode == 0
    assert biarena("export", run, "--format", "jsonl", "-o", exported).returncode == 0
    rows = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    descriptive = [r for r in rows if "corgi:type1" in r["labels"]]
    assert len(descriptive) >= 20
    assert all(r["execution_accuracy"] == 1.0 for r in descriptive)
    assert all(r["result_f1"] == 1.0 for r in descriptive)


def test_predictions_come_from_trend_and_season_not_from_last_year(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    conn = sqlite3.connect(benchmark.database_location("app_store"))
    spec = vertical_spec("app_store")
    checked = naive_hits = 0
    for question in benchmark.questions:
        match = re.fullmatch(r"How many (.+) should we expect in (\w+) (\d{4})\?", question.text)
        if question.database != "app_store" or "corgi:form:forecast-count" not in question.labels:
            continue
        reference = question.reference_answer or ""
        assert "tolerance ±10%" in reference and "trend is about +12% a year since 2024-05-01" in reference
        table = question.tables[0]
        month = list(calendar.month_name).index(match.group(2))
        expected = float(re.match(r"About ([\d,]+)", reference).group(1).replace(",", ""))
        stamp = spec.tables[table].stamp
        year = int(match.group(3)) - 1
        last_year = conn.execute(
            f'SELECT count(*) FROM "{table}" WHERE substr("{stamp}", 1, 7) = ?', (f"{year}-{month:02d}",)
        ).fetchone()[0]
        # a year of growth (+30% a year, then +12%) separates the forecast from the same month last year
        assert expected > last_year
        naive_hits += abs(last_year / expected - 1) <= 0.10
        checked += 1
    assert checked >= 6 and naive_hits * 3 <= checked


def test_suite_refuses_bad_input(tmp_path: Path) -> None:
    assert_user_error(biarena("suite", "corgi", "--verticals", "food_delivry", "-o", tmp_path / "x"), "food_delivery")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine", encoding="utf-8")
    assert_user_error(biarena("suite", "corgi", "-o", full), "not an empty directory")
    assert (full / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_references_record_their_hidden_parameters_and_supporting_rows(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    connections = {name: sqlite3.connect(benchmark.database_location(name)) for name in VERTICALS}
    for question in benchmark.questions:
        if "corgi:type1" in question.labels:
            assert question.evidence is None
            continue
        evidence = question.evidence or {}
        assert evidence.get("kind") and evidence.get("parameters"), question.id
        for sql in evidence["support_sql"]:
            assert connections[question.database].execute(sql).fetchall(), (question.id, sql)
        if "corgi:type3" in question.labels and isinstance(evidence.get("expected"), float):
            assert 0 < evidence["tolerance"] <= 0.10 and "tolerance ±" in question.reference_answer
    for name in VERTICALS:
        spec = vertical_spec(name)
        for event in spec.planted:
            asked = [
                q for q in benchmark.questions if q.database == name and (q.evidence or {}).get("event") == event.name
            ]
            assert {"corgi:type2", "corgi:type4"} <= {label for q in asked for label in q.labels}
            for question in asked:
                assert question.evidence["cause"] == {"table": event.cause["table"], "row": event.cause["row"]}
                assert question.evidence["window"] == [event.start.isoformat(), event.end.isoformat()]


def test_questions_speak_business_language_and_sum_only_values(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    for question in benchmark.questions:
        # no column names, literal codes or exact windows in any question
        assert not re.search(r"\w_\w|(?<!\w)'\w[^']*'|\d{4}-\d{2}-\d{2}", question.text), question.text
        assert not re.search(r"\b(?:is|of|for|and) [01]\b", question.text), question.text
        if "corgi:type4" in question.labels:
            for sql in (question.evidence or {}).get("support_sql", []):
                for column in re.findall(r"SUM\((?:\w+\.)?\"(\w+)\"\)", sql):
                    assert not re.search(r"_id$|age|rank|position|rating|stars|score|pct|rate", column), sql


def test_old_question_records_load_without_evidence() -> None:
    from biarena.records import Question

    old = {"id": "shop/type2/000", "text": "Why?", "database": "shop", "reference_answer": "Because."}
    assert Question.model_validate(old).evidence is None
    assert "evidence" not in Question.model_validate(old).model_dump(exclude_none=True)
