"""`insight`: answers written by hand as an analyst would, scored against what the simulator planted."""

import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from biarena.benchmarks import load_benchmark
from biarena.judges.base import ScorerContext
from biarena.judges.insight import InsightJudge
from biarena.judges.insight_text import changes, clauses, months
from biarena.records import Answer, Benchmark, Question, SystemSpec
from biarena.scoring import get_scorer


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Benchmark:
    """food_delivery at a twentieth of its size: three planted events with their causes in `market_event`."""
    from biarena.generate.corgi_suite import build

    target = tmp_path_factory.mktemp("insight") / "corgi"
    build(target, verticals=["food_delivery"], scale=0.05, seed=0)
    return load_benchmark(target)


def _question(bench: Benchmark, event: str, kind: str, text_start: str) -> Question:
    return next(
        q
        for q in bench.questions
        if (q.evidence or {}).get("event") == event and kind in q.labels and q.text.startswith(text_start)
    )


def _judge(bench: Benchmark, question: Question, text: str) -> tuple[float, float, str]:
    context = ScorerContext(
        scoring=SimpleNamespace(benchmark=bench), model=None, rubric=None, rubric_hash=None, temperature=0.0, seed=0
    )
    answer = Answer(question_id=question.id, system=SystemSpec(agent="analyst"), text=text)
    judgement = InsightJudge().judge(question, answer, context)
    return judgement.scores["insight"], judgement.scores["insight.contradicted"], judgement.rationale or ""


def _restaurant(bench: Benchmark) -> str:
    assert bench.root is not None
    with sqlite3.connect(bench.root / "databases" / "food_delivery.sqlite") as conn:
        return conn.execute("SELECT name FROM restaurant ORDER BY restaurant_id LIMIT 1").fetchone()[0]


def test_the_cause_named_by_description_is_stated(bench: Benchmark) -> None:
    question = _question(bench, "downtown_competitor_drop", "corgi:type2", "Why did downtown orders fall")
    good = (
        "Downtown orders dropped sharply in September 2024: about 55% below the August weeks. The timing points to "
        "QuickBite's new dark-kitchen hub downtown, which started offering free delivery on 1 September; it drove "
        "the loss, since the other zones held steady."
    )
    score, contradicted, why = _judge(bench, question, good)
    assert score == 1.0 and contradicted == 0.0, why
    assert "cause stated" in why and "QuickBite" in why  # the rationale quotes the sentence it matched


def test_a_wrong_cause_from_another_row_or_table_is_contradicted(bench: Benchmark) -> None:
    question = _question(bench, "downtown_competitor_drop", "corgi:type2", "Why did downtown orders fall")
    other_event = (
        "Downtown orders dropped by about half in September 2024, because new bike lanes opened downtown and made "
        "deliveries slower."
    )
    other_table = (
        f"Downtown orders dropped by about half in September 2024, driven by {_restaurant(bench)}, a large "
        "restaurant there, pausing its deliveries for a refit."
    )
    for text in (other_event, other_table):
        score, contradicted, why = _judge(bench, question, text)
        assert "cause contradicted" in why, why
        assert contradicted > 0 and score < 1.0
    denied = (
        "Downtown orders fell by about half in September 2024. QuickBite's downtown dark kitchen hub does not line "
        "up with the change; road works are the more likely reason."
    )
    assert "denies the planted cause" in _judge(bench, question, denied)[2]


def test_direction_size_and_window_are_read_from_the_prose(bench: Benchmark) -> None:
    question = _question(bench, "downtown_competitor_drop", "corgi:type2", "Why did downtown orders fall")
    cause = "because QuickBite opened a downtown dark kitchen hub with free delivery"
    _, _, right = _judge(bench, question, f"Downtown orders fell by 52% in Sept 2024 {cause}.")
    assert "direction stated" in right and "size stated" in right and "window stated" in right
    _, contradicted, wrong = _judge(bench, question, f"Downtown orders rose by 10% in Sept 2024 {cause}.")
    assert "direction contradicted" in wrong and "size contradicted" in wrong and contradicted > 0
    _, _, silent = _judge(bench, question, f"Something happened to downtown orders {cause}.")
    assert "size missing" in silent and "window missing" in silent


def test_a_recommendation_must_act_on_the_cause_and_say_how_much_or_when(bench: Benchmark) -> None:
    question = _question(bench, "downtown_competitor_drop", "corgi:type4", "What should we do about the fall")
    finding = (
        "Downtown orders fell by about half in September 2024 because QuickBite opened a downtown dark kitchen hub "
        "with free delivery."
    )
    concrete = (
        f"{finding}\n\nRecommendation: answer the competitor downtown with a free-delivery offer of our own for "
        "downtown orders, starting within two weeks, and aim to win back 20% of the lost orders by December."
    )
    vague = (
        f"{finding}\n\nRecommendation: keep an eye on downtown orders and do something about the competition "
        "when it seems right."
    )
    elsewhere = f"{finding}\n\nRecommendation: run a 10% discount on uptown lunch orders every Friday next month."
    good, _, why_good = _judge(bench, question, concrete)
    worse, _, why_vague = _judge(bench, question, vague)
    assert "action stated" in why_good and good == 1.0, why_good
    assert "names the target but says neither how much nor when" in why_vague and worse < good
    assert "recommends nothing about the planted target" in _judge(bench, question, elsewhere)[2]


def test_a_forecast_is_read_against_its_tolerance(bench: Benchmark) -> None:
    question = next(
        q
        for q in bench.questions
        if (q.evidence or {}).get("kind") == "forecast" and "corgi:type3" in q.labels and q.evidence.get("tolerance")
    )
    expected = float(question.evidence["expected"])
    close = _judge(bench, question, f"We expect about {expected * 1.04:,.0f} in that period.")
    far = _judge(bench, question, f"We expect about {expected * 1.6:,.0f} in that period.")
    assert close[0] == 1.0 and close[1] == 0.0, close[2]
    assert far[0] == 0.0 and far[1] == 1.0, far[2]


def test_a_restated_question_states_nothing(bench: Benchmark) -> None:
    question = _question(bench, "downtown_competitor_drop", "corgi:type2", "Why did downtown orders fall")
    score, contradicted, why = _judge(bench, question, f'You asked: "{question.text}" I could not find out.')
    assert score == 0.0 and contradicted == 0.0, why


def test_the_prose_readers() -> None:
    assert [round(v, 2) for v, _ in changes("it doubled, fell by 60%, ran at 1.8 times, +25% and x0.45")] == [
        0.4,
        1.8,
        1.25,
        0.45,
        2.0,
    ]
    assert months("in September 2024, 2024-11-03 and May 2023; this may be partial") == [
        (2024, 9),
        (2024, 11),
        (2023, 5),
    ]
    denied = clauses("Sales rose because of the promo rather than the weather; the strike is unrelated.")
    assert denied[0].cause == "the promo" and "weather" in denied[0].denied
    assert denied[1].asserted == "" and "strike" in denied[1].denied


def test_registered_without_a_model_and_only_for_planted_truths(bench: Benchmark) -> None:
    judge = get_scorer("insight")
    assert judge.needs_model is False
    kinds = {(q.evidence or {}).get("kind") for q in bench.questions if judge.applies(q)}
    assert kinds <= {"planted", "seasonal", "trend", "forecast", "segment"} and "planted" in kinds
    assert not any(judge.applies(q) for q in bench.questions if "corgi:type1" in q.labels)


def test_scored_and_traced_through_the_commands(bench: Benchmark, tmp_path: Path) -> None:
    from tests.cli_in_process import cli
    from tests.judge_run_helpers import answer_for, write_run

    question = _question(bench, "downtown_competitor_drop", "corgi:type2", "Why did downtown orders fall")
    text = "Downtown orders fell by about half in September 2024, because new bike lanes opened downtown."
    answer = answer_for(question).model_copy(update={"text": text})
    run = write_run(tmp_path / "r.run", bench, {question.id: answer})
    scored = cli("score", run, "--scorer", "insight")
    assert scored.returncode == 0, scored.stderr
    trace = cli("show", run, "--trace", question.id)
    assert trace.returncode == 0, trace.stderr
    assert "insight v1" in trace.stdout and "insight = 0.8" in trace.stdout, trace.stdout
    assert "insight.contradicted = 0.2" in trace.stdout
    assert "1:cause (contradicted): 0 — gives a cause that was not planted" in trace.stdout
    assert "4:size (stated): 1 — states the change as 'by about half'" in trace.stdout
