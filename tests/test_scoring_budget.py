"""Scoring is bounded: a pathological answer scores 0 with the reason, and never stops the scoring of a run."""

import json
from pathlib import Path

import pytest

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.metrics import MetricScorer, ScoringBudget, ScoringContext
from biarena.metrics.semantic_similarity import semantic_similarity
from biarena.records import Answer, Question, Score
from biarena.runner import RunStore
from biarena.scoring import ScoreInfo, score_run, setup_scorers
from tests.test_cli import biarena

LONG_SUM = "SELECT " + "+".join(["1"] * 1000)
GOLD = "SELECT city_id, sum(amount) FROM sales WHERE qty > 2 GROUP BY city_id ORDER BY 2 DESC"


def test_a_deep_query_scores_zero_with_the_reason() -> None:
    found = semantic_similarity(LONG_SUM, LONG_SUM)
    assert found.value == 0.0 and found.over_budget and "nests deeper" in found.over_budget


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        (ScoringBudget(max_nodes=10), "syntax nodes"),
        (ScoringBudget(max_pairs=100), "node pairs"),
        (ScoringBudget(max_sql_chars=50), "characters"),
        (ScoringBudget(seconds=1e-9), "scoring budget"),
    ],
)
def test_each_bound_of_the_budget_holds(budget: ScoringBudget, reason: str) -> None:
    predicted = GOLD.replace("qty > 2", "qty > 3")
    assert semantic_similarity(GOLD, predicted).value > 0.8
    found = semantic_similarity(GOLD, predicted, budget=budget)
    assert found.value == 0.0 and reason in (found.over_budget or "")


def test_changed_tables_score_zero_before_any_diff() -> None:
    found = semantic_similarity(GOLD, GOLD.replace("sales", "orders"), budget=ScoringBudget(max_pairs=1))
    assert found.value == 0.0 and found.table_changed and found.over_budget is None


def test_score_survives_sql_the_run_accepted(tmp_path: Path) -> None:
    """A 1000-term sum (which runs) and an oversized query are scored 0 with the reason; the others as usual."""
    benchmark = resolve_benchmark("bis-synth")
    first, second, third = benchmark.questions[:3]
    predictions = tmp_path / "p.jsonl"
    huge = "SELECT " + ", ".join(f"amount + {i}" for i in range(40_000)) + " FROM sales"
    rows = [
        {"question_id": first.id, "sql": LONG_SUM},
        {"question_id": second.id, "sql": second.gold_sql[0]},
        {"question_id": third.id, "sql": huge},
    ]
    predictions.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    run = tmp_path / "r.run"
    made = biarena(
        "run", "bis-synth", "--system", "predictions", "--predictions", predictions, "--partial", "--limit=3", "-o", run
    )
    assert made.returncode in (0, 1), made.stderr
    scored = biarena("score", run)
    assert scored.returncode == 0, scored.stderr
    with RunStore(run) as store:
        answers = {a.question_id: a for a in store.answers()}
        scores = {(s.question_id, s.name): s for s in store.scores()}
    assert answers[first.id].steps[0].ok and answers[first.id].steps[0].row_count == 1
    assert "over the 100,000-character limit" in (answers[third.id].steps[0].error or "")
    assert scores[(first.id, "execution")].value == 1.0
    deep = scores[(first.id, "semantic_similarity")]
    assert deep.value == 0.0 and "not compared" in (deep.rationale or "")
    assert scores[(second.id, "semantic_similarity")].value == 1.0
    large = scores[(third.id, "semantic_similarity")]
    assert large.value == 0.0 and "characters" in (large.rationale or "")


class _Exploding(MetricScorer):
    """A scorer that fails on one question, as a bug or a hostile answer could make any scorer do."""

    name = "exploding"
    version = "1"
    infos = (ScoreInfo("boom", "boom", "1 unless it breaks"),)

    def __init__(self, victim: str) -> None:
        self.victim = victim

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        if question.id == self.victim:
            raise RecursionError("maximum recursion depth exceeded")
        return [Score(question_id=question.id, name="boom", scorer=self.name, scorer_version=self.version, value=1.0)]


def test_a_failing_scorer_never_stops_the_others(tmp_path: Path) -> None:
    run = tmp_path / "g.run"
    made = biarena("run", "bis-synth", "--system", "gold", "--limit", "3", "-o", run)
    assert made.returncode == 0, made.stderr
    benchmark = resolve_benchmark("bis-synth")
    victim = benchmark.questions[1].id
    pool = DatabasePool(benchmark)
    context = ScoringContext(benchmark=benchmark, databases=pool)
    with RunStore(run) as store:
        summary = score_run(store, setup_scorers([_Exploding(victim), "execution"], context))
        scores = {(s.question_id, s.name): s for s in store.scores()}
    pool.close()
    assert summary.answers_scored == 3 and summary.scored_now == 6 and summary.failed == 1
    failed = scores[(victim, "boom")]
    assert failed.value == 0.0 and "too large or too deep" in (failed.rationale or "")
    assert all(scores[(q.id, "execution")].value == 1.0 for q in benchmark.questions[:3])
    assert scores[(benchmark.questions[0].id, "boom")].value == 1.0
