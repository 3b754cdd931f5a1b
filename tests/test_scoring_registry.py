"""The scorer registry: every score declared once, and a new scorer (one file, one registry line) seen by `score`,
`show`, `export`, the report and the arena with no other change."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from biarena.arena.catalog import system_from_run
from biarena.metrics.summary import counted_scores, overall
from biarena.records import Answer, Question, Score, SystemSpec
from biarena.report.run_data import RunData
from biarena.runner import RunStore
from biarena.scoring import SCORERS, default_scorers, registered_infos, scorer_infos
from tests.cli_in_process import cli as in_process
from tests.run_helpers import cli, make_shop
from tests.toy_scorer import SqlLengthScorer


def test_every_score_is_declared_once_with_a_label_and_every_scorer_has_a_headline() -> None:
    infos = registered_infos()
    names = [info.name for info in infos]
    assert len(names) == len(set(names))
    assert all(info.label and info.description and info.range[0] < info.range[1] for info in infos)
    for name in SCORERS:
        made = SCORERS[name]()
        assert made.name == name and any(info.headline for info in made.infos)
        assert {info.kind for info in made.infos} == ({"judge"} if name not in default_scorers() else {"metric"})
    assert default_scorers() == ["execution", "execution_accuracy", "semantic_similarity", "result_similarity"]
    assert scorer_infos("no-such-scorer") == ()


@pytest.fixture
def gold_run(tmp_path: Path, sales_db: Path) -> Path:
    """A gold run of six questions over the sales database, scored with the metrics."""
    bench = make_shop(tmp_path, sales_db)
    run = tmp_path / "gold.run"
    assert cli("run", bench, "--system", "gold", "-o", run).returncode == 0
    assert cli("score", run).returncode == 0
    return run


def test_a_scorer_added_with_one_registry_line_is_scored_shown_exported_reported(
    gold_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SCORERS, "sql_length", SqlLengthScorer)
    scored = in_process("score", gold_run, "--scorer", "sql_length")
    assert scored.returncode == 0, scored.stderr
    assert "5 results now (0 failed), 0 already made, 1 not applicable" in scored.stderr
    with RunStore(gold_run) as store:
        lengths = {s.question_id: s.value for s in store.scores() if s.name == "sql_length"}
        assert store.not_applicable() == {("q0001", "sql_length")}
    assert set(lengths) == {"q0000", "q0002", "q0003", "q0004", "q0005"}

    table = in_process("show", gold_run)
    assert table.returncode == 0, table.stderr
    assert "SQL len" in table.stdout and "hundreds of characters in the final SQL" in table.stdout
    data = json.loads(in_process("show", gold_run, "--format", "json").stdout)
    overall = data["runs"][0]["overall"]["scores"]
    assert overall["sql_length"] == pytest.approx(sum(lengths.values()) / 5)
    assert overall["execution_accuracy"] == 1.0 and data["judges"] == {}

    rows = tmp_path / "rows.jsonl"
    assert in_process("export", gold_run, "-o", rows).returncode == 0
    exported = {r["question_id"]: r["scores"] for r in map(json.loads, rows.read_text(encoding="utf-8").splitlines())}
    assert exported["q0001"]["sql_length"] is None and exported["q0002"]["sql_length"] == lengths["q0002"]

    report = tmp_path / "report.html"
    made = in_process("report", gold_run, "-o", report)
    assert made.returncode == 0, made.stderr
    html = report.read_text(encoding="utf-8")
    assert "<th>SQL len</th>" in html and "SQL len: hundreds of characters in the final SQL." in html

    system = system_from_run(RunData.read(gold_run), "gold")
    assert system.auto["sql_length"] == overall["sql_length"]

    # once the scorer is gone (an old run, a removed scorer) its score still shows, by its raw name
    monkeypatch.delitem(SCORERS, "sql_length")
    table = in_process("show", gold_run)
    assert table.returncode == 0 and "sql_length" in table.stdout and "SQL len" not in table.stdout


class _AnsweredOnly(SqlLengthScorer):
    """The toy, averaged over the answered questions only."""

    name = "answered_length"
    infos = (replace(SqlLengthScorer.infos[0], name="answered_length", average="answered"),)


def test_a_score_averaged_over_answered_questions_leaves_unanswered_ones_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SCORERS, "answered_length", _AnsweredOnly)
    questions = [Question(id=q, text=q, database="db", gold_sql=["SELECT 1"]) for q in ("a", "b", "c")]
    answers = [Answer(question_id="a", system=SystemSpec(agent="x"), final_sql="SELECT 1")]
    scores = [
        Score(question_id="a", name=name, scorer=scorer, scorer_version="1", value=0.5)
        for name, scorer in (("answered_length", "answered_length"), ("execution_accuracy", "execution_accuracy"))
    ]
    counted = counted_scores(questions, answers, scores)
    assert counted["b"] == {"answered_length": None, "execution_accuracy": 0.0}
    means = overall(questions, scores, ["answered_length", "execution_accuracy"], answers=answers).means
    assert means == {"answered_length": 0.5, "execution_accuracy": pytest.approx(0.5 / 3)}
