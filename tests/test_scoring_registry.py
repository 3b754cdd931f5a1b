"""The scorer registry: every score declared once, and a new scorer (one file, one registry line) seen by `score`,
`show`, `export`, the report and the arena with no other change."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from biarena.arena.catalog import system_from_run
from biarena.metrics import MetricScorer
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
        metric = isinstance(made, MetricScorer)  # the default ones, and test-suite accuracy (run when asked)
        assert metric == (name in default_scorers()) or name == "test_suite_accuracy"
        assert {info.kind for info in made.infos} == ({"metric"} if metric else {"judge"})
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
    exported = {r["question_id"]: r for r in map(json.loads, rows.read_text(encoding="utf-8").splitlines())}
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


def test_a_scorers_options_are_listed_set_with_O_and_score_again(
    gold_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SCORERS, "sql_length", SqlLengthScorer)
    described = in_process("describe", "scorer", "sql_length")
    assert described.returncode == 0 and "unit" in described.stdout and "Characters per unit" in described.stdout
    assert in_process("score", gold_run, "--scorer", "sql_length").returncode == 0
    with RunStore(gold_run) as store:
        hundreds = {s.question_id: s.value for s in store.scores() if s.name == "sql_length"}

    # a changed option is another method: the answers are scored again, and the new values replace the old
    scored = in_process("score", gold_run, "--scorer", "sql_length", "--scorer", "execution", "-O", "unit=10")
    assert scored.returncode == 0, scored.stderr
    assert "5 results now" in scored.stderr
    with RunStore(gold_run) as store:
        tens = {s.question_id: s for s in store.scores() if s.name == "sql_length"}
    assert {q: s.value for q, s in tens.items()} == {q: pytest.approx(v * 10) for q, v in hundreds.items()}
    assert all(s.scorer_version.startswith("1+") for s in tens.values())
    again = in_process("score", gold_run, "--scorer", "sql_length", "-O", "sql_length.unit=10")
    assert again.returncode == 0 and "0 results now" in again.stderr and "5 already made" in again.stderr

    options = tmp_path / "scorers.yaml"
    options.write_text("sql_length:\n  unit: 1\n", encoding="utf-8")
    assert in_process("score", gold_run, "--scorer", "sql_length", "--options", options).returncode == 0
    with RunStore(gold_run) as store:
        ones = {s.question_id: s.value for s in store.scores() if s.name == "sql_length"}
    assert ones == {q: pytest.approx(v * 100) for q, v in hundreds.items()}

    for args, message in (
        (["-O", "unit=0"], "error: scorer 'sql_length': -O unit=0: must be greater than or equal to 1"),
        (["-O", "unti=3"], "error: scorer 'sql_length' does not take option 'unti'; did you mean 'unit'?"),
        (
            ["--scorer", "execution", "-O", "unti=3"],
            "error: -O unti: none of the scorers asked for (sql_length, execution) takes option 'unti'; did you mean",
        ),
        (["-O", "corgi.unit=3"], "error: -O corgi.unit: no scorer 'corgi' is asked for here"),
    ):
        bad = in_process("score", gold_run, "--scorer", "sql_length", *args)
        lines = bad.stderr.strip().splitlines()
        assert bad.returncode == 2 and len(lines) == 1 and lines[0].startswith(message), bad.stderr


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
