"""The reference judge with a scripted model: conclusive Match / Not Match, interpretive 1-5, failures, summary."""

from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.judges.reference import question_kind, reference_claim, summarize_reference
from biarena.judges.rubric import load_builtin_rubric
from biarena.llm import Completion
from biarena.scoring import get_scorer
from tests.judge_helpers import answer, prompt_of, question, reply, scripted, shop_context

PLANTED = (
    "Downtown orders fell by about half in September 2024 because a competitor opened. Evidence (hidden "
    "parameters): planted event 'drop', rows of orders x0.45 from 2024-09-02 to 2024-09-29 against the weeks before."
)


def _judge(tmp_path: Path, sales_db: Path, q, a, replies, **context):
    model, provider = scripted(replies)
    ctx = shop_context(tmp_path, sales_db, [q], model)
    for key, value in context.items():
        setattr(ctx, key, value)
    return get_scorer("reference").judge(q, a, ctx), provider


def test_conclusive_match_and_not_match(tmp_path: Path, sales_db: Path) -> None:
    q = question(labels=["corgi:type2"], reference_answer=PLANTED)
    result, provider = _judge(
        tmp_path,
        sales_db,
        q,
        answer("Orders fell by half: a competitor opened."),
        [reply(rationale="All there.", conclusion="Match")],
    )
    assert result.failed is None
    assert result.scores == {"reference.match": 1.0}
    assert result.rationale == "All there."
    assert result.sub_scores["kind"] == "conclusive" and result.sub_scores["conclusion"] == "Match"
    prompt = prompt_of(provider.requests[0])
    # the judge compares with the finding, not the simulator's hidden parameters
    assert "a competitor opened" in prompt and "hidden parameters" not in prompt and "planted event" not in prompt
    assert "Orders fell by half: a competitor opened." in prompt
    assert result.trace[0].role == "conclusive" and result.trace[0].parsed["conclusion"] == "Match"

    result, _ = _judge(
        tmp_path / "b", sales_db, q, answer("Orders rose."), [reply(rationale="Wrong cause.", conclusion="Not Match")]
    )
    assert result.scores == {"reference.match": 0.0}


def test_interpretive_score(tmp_path: Path, sales_db: Path) -> None:
    q = question(labels=["dbqa:interpretive"], reference_answer="Paris sells the most coffee.")
    result, _ = _judge(tmp_path, sales_db, q, answer("Paris leads coffee."), [reply(rationale="Most points.", score=4)])
    assert result.scores == {"reference.score": 4.0}
    assert result.sub_scores["question_type"] == "dbqa:interpretive"


def test_kinds_come_from_labels_through_the_rubric() -> None:
    rubric = load_builtin_rubric("reference.yaml").data
    kinds = {
        label: question_kind(question(labels=[label], reference_answer="x"), rubric)
        for label in ("dbqa:conclusive", "dbqa:interpretive", "corgi:type2", "corgi:type3", "corgi:type4", "bis:x")
    }
    assert kinds == {
        "dbqa:conclusive": "conclusive",
        "dbqa:interpretive": "interpretive",
        "corgi:type2": "conclusive",
        "corgi:type3": "conclusive",
        "corgi:type4": "interpretive",
        "bis:x": "interpretive",
    }
    assert reference_claim(PLANTED, rubric).endswith("because a competitor opened.")


def test_applies_only_with_a_reference() -> None:
    judge = get_scorer("reference")
    assert judge.applies(question(reference_answer="Yes."))
    assert not judge.applies(question())
    assert not judge.applies(question(reference_answer="  "))


def test_an_answer_without_text_gets_the_lowest_verdict_without_a_call(tmp_path: Path, sales_db: Path) -> None:
    q = question(labels=["corgi:type3"], reference_answer="About 120.")
    result, provider = _judge(tmp_path, sales_db, q, answer(None), ["unused"])
    assert result.scores == {"reference.match": 0.0} and provider.requests == []
    q = question(labels=["corgi:type4"], reference_answer="Promote in August.")
    result, provider = _judge(tmp_path / "b", sales_db, q, answer(""), ["unused"])
    assert result.scores == {"reference.score": 1.0} and provider.requests == []


def test_malformed_and_truncated_replies_fail_with_the_raw_reply(tmp_path: Path, sales_db: Path) -> None:
    q = question(labels=["dbqa:conclusive"], reference_answer="Yes.")
    result, provider = _judge(tmp_path, sales_db, q, answer("Yes."), ["Conclusion: Match", "I think it matches"])
    assert result.failed and result.scores == {"reference.match": None}
    assert len(provider.requests) == 2  # asked again once
    entry = result.trace[0]
    assert entry.reply == "I think it matches" and entry.rejected == ["Conclusion: Match"] and entry.parsed is None
    cut = Completion(text='{"rationale": "The answer gives', finish_reason="length")
    result, _ = _judge(tmp_path / "b", sales_db, q, answer("Yes."), [cut, cut])
    assert result.failed and "cut off" in result.failed
    assert result.trace[0].reply == '{"rationale": "The answer gives'
    # a score outside 1-5 is not a score
    q = question(labels=["dbqa:interpretive"], reference_answer="Yes.")
    result, _ = _judge(tmp_path / "c", sales_db, q, answer("Yes."), [reply(rationale="r", score=9)] * 2)
    assert result.failed and result.scores == {"reference.score": None}


def test_a_user_rubric_changes_prompts_and_kinds(tmp_path: Path, sales_db: Path) -> None:
    data = dict(load_builtin_rubric("reference.yaml").data)
    data["kinds"] = {"corgi:type4": "conclusive"}
    data["prompts"] = {**data["prompts"], "conclusive": "Q={{ question }} R={{ reference }} A={{ answer }}"}
    q = question(labels=["corgi:type4"], reference_answer="Promote in August.")
    result, provider = _judge(
        tmp_path, sales_db, q, answer("August."), [reply(rationale="r", conclusion="Match")], rubric=data
    )
    assert result.scores == {"reference.match": 1.0}
    assert prompt_of(provider.requests[0]).startswith("Q=How many sales were made? R=Promote in August. A=August.")
    judge = get_scorer("reference")
    with pytest.raises(FormatError, match=r"mine\.yaml: no prompt 'interpretive'"):
        judge.check_rubric({"rubric": "reference", "prompts": {"conclusive": "x"}}, "mine.yaml")
    with pytest.raises(FormatError, match="kind 'maybe'"):
        judge.check_rubric({**data, "kinds": {"dbqa:x": "maybe"}}, "mine.yaml")
    with pytest.raises(FormatError, match="line 1"):
        judge.check_rubric({**data, "prompts": {**data["prompts"], "interpretive": "{{ oops"}}, "mine.yaml")


def test_summary_by_question_type() -> None:
    two = question("a", labels=["corgi:type2"], reference_answer="x")
    four = question("b", labels=["corgi:type4"], reference_answer="x")
    rows = summarize_reference(
        [
            (two, {"reference.match": 1.0}),
            (two, {"reference.match": 0.0}),
            (two, {"reference.match": 1.0}),
            (two, {"reference.match": None}),
            (four, {"reference.score": 4.0}),
            (four, {"reference.score": 1.0}),
        ]
    )
    by = {r.question_type: r for r in rows}
    assert [r.question_type for r in rows] == ["corgi:type2", "corgi:type4", "all"]
    assert by["corgi:type2"].match_rate == pytest.approx(2 / 3) and by["corgi:type2"].failed == 1
    assert by["corgi:type2"].conclusive == 3 and by["corgi:type2"].mean_score is None
    assert by["corgi:type4"].mean_score == 2.5 and by["corgi:type4"].match_rate is None
    assert by["all"].answers == 6 and by["all"].match_rate == pytest.approx(2 / 3) and by["all"].mean_score == 2.5
