"""How means count each question (answered, failed, unanswered, gold that cannot be compared) and run labels."""

from pathlib import Path

import pytest

from biarena.metrics.summary import counted_scores, overall, summarize, unusable_gold
from biarena.records import Answer, Question, RunSpec, Score, Step, SystemSpec
from biarena.report import RunData, compare, label_runs

SYSTEM = SystemSpec(agent="predictions")


def question(qid: str, gold: bool = True, label: str = "bis:filtering") -> Question:
    """A question with or without gold SQL."""
    return Question(
        id=qid, text=f"question {qid}", database="db", labels=[label], gold_sql=["SELECT 1"] if gold else []
    )


def ran(qid: str, error: str | None = None) -> Answer:
    """An answer whose final SQL ran (or failed with `error`)."""
    step = Step(sql="SELECT 1", error=error, error_kind="error" if error else None)
    return Answer(question_id=qid, system=SYSTEM, steps=[step], final_sql="SELECT 1")


def no_answer(qid: str) -> Answer:
    """An answer recording that the system gave none."""
    return Answer(question_id=qid, system=SYSTEM, status="error", error="no prediction for this question")


def scores(qid: str, **values: float | None) -> list[Score]:
    """Scores of one question."""
    return [
        Score(question_id=qid, name=name, scorer="test", scorer_version="1", value=value)
        for name, value in values.items()
    ]


def test_a_missing_answer_counts_zero_but_a_gold_that_cannot_be_compared_stays_out() -> None:
    questions = [question("a"), question("b"), question("c"), question("d", gold=False), question("e")]
    answers = [ran("a"), no_answer("b"), no_answer("d")]
    stored = [
        *scores("a", ser=1.0, execution_accuracy=1.0),
        *scores("b", ser=None, execution_accuracy=0.0),
        *scores("d", ser=None, execution_accuracy=None),
    ]
    counted = counted_scores(questions, answers, stored)
    assert counted["a"] == {"ser": 1.0, "execution_accuracy": 1.0}
    assert counted["b"] == {"ser": 0.0, "execution_accuracy": 0.0}
    assert counted["d"] == {"ser": 0.0, "execution_accuracy": None}  # no gold: nothing to compare
    assert counted["e"] == {"ser": 0.0, "execution_accuracy": 0.0}  # never run
    row = overall(questions, stored, ["ser", "execution_accuracy"], answers=answers)
    assert row.means["ser"] == pytest.approx(1 / 5) and row.counts["execution_accuracy"] == 4
    assert (row.count, row.answered, row.coverage) == (5, 1, pytest.approx(0.2))
    assert row.outcomes == {"ran": 1, "no_answer": 2, "unanswered": 2}


def test_a_gold_that_fails_in_another_run_keeps_an_unanswered_question_out() -> None:
    questions = [question("a"), question("b")]
    other = scores("b", execution_accuracy=None)  # the other run's scorer found b's gold failing
    counted = counted_scores(questions, [ran("a")], scores("a", execution_accuracy=1.0), unusable=unusable_gold(other))
    assert counted["b"] == {"execution_accuracy": None}


def test_failed_sql_counts_what_its_scores_say_and_unscored_answers_wait() -> None:
    questions = [question("a"), question("b")]
    answers = [ran("a", error="no such table: x"), ran("b")]
    stored = scores("a", ser=0.0, execution_accuracy=0.0)
    row = overall(questions, stored, ["ser"], answers=answers)
    assert row.outcomes == {"sql_failed": 1, "ran": 1} and row.answered == 2
    assert row.counts["ser"] == 1  # b is answered but not scored yet: left out, not 0


def test_a_judge_score_of_a_missing_answer_stands() -> None:
    counted = counted_scores([question("a")], [no_answer("a")], scores("a", judge=0.25, ser=None))
    assert counted["a"] == {"judge": 0.25, "ser": 0.0}


def test_groups_by_label_and_language() -> None:
    questions = [question("a"), question("b", label="bis:trend"), question("c", label="bis:trend")]
    rows = summarize(questions, scores("a", ser=1.0), ["ser"], answers=[ran("a")])
    assert [(r.group, r.count, r.answered, r.means["ser"]) for r in rows] == [
        ("bis:filtering", 1, 1, 1.0),
        ("bis:trend", 2, 0, 0.0),
    ]
    assert [r.group for r in summarize(questions, [], ["ser"], by="language", answers=[])] == ["en"]


def run_data(path: str, questions: list[Question], **spec: object) -> RunData:
    """A RunData without a file."""
    values = {"benchmark": "b", "benchmark_name": "b", "system": "predictions", **spec}
    return RunData(Path(path), RunSpec(**values), questions, [], [])


def test_labels_tell_runs_apart() -> None:
    runs = [
        run_data("/x/monday/pred.run", []),
        run_data("/x/tuesday/pred.run", []),
        run_data("/y/tuesday/pred.run", []),
    ]
    label_runs(runs)
    labels = [r.label for r in runs]
    assert labels == ["predictions #1", "predictions #2", "predictions #3"]
    named = [run_data("/x/a.run", [], label="stored"), run_data("/x/b.run", [], label="given")]
    label_runs(named, ["given"])
    assert [r.label for r in named] == ["given", "given #1"]


def test_runs_over_different_questions_compare_on_the_shared_ones() -> None:
    everything = [question("a"), question("b"), question("c")]
    comparison = compare([run_data("/x/all.run", everything), run_data("/x/two.run", everything[:2])])
    assert comparison.shared == ["a", "b"]
    assert "the 2 they share" in comparison.warnings[0]
    assert [s.overall.count for s in comparison.summaries] == [2, 2]
    apart = compare([run_data("/x/all.run", everything), run_data("/x/other.run", [question("z")])])
    assert apart.shared is None and "share no question" in apart.warnings[0]
