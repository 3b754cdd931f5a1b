"""The peer-review judge with a scripted model: reviewers and meta-reviewers per stage, majority and unanimity."""

from pathlib import Path

import pytest

from biarena.judges.peer_review import STAGES, majority, summarize_peer_review, unanimous
from biarena.llm import ChatRequest
from biarena.scoring import get_scorer
from tests.judge_helpers import answer, prompt_of, question, reply, scripted, shop_context

STAGE_OF = {
    "proposed a plan": "planning",
    "judged a planning agent": "planning",
    "translated\nthe plan into SQL": "tool_employment",
    "the SQL queries an agent wrote": "tool_employment",
    "wrote an answer to the question": "synthesis",
    "an answer an agent synthesized": "synthesis",
}


def _stage(prompt: str) -> str:
    return next(stage for marker, stage in STAGE_OF.items() if marker in prompt)


class Panel:
    """Decisions scripted per stage: reviewers' then meta-reviewers', in the order they are asked."""

    def __init__(self, decisions: dict[str, tuple[str, str]]) -> None:
        self.decisions = {stage: list(reviews + metas) for stage, (reviews, metas) in decisions.items()}

    def __call__(self, request: ChatRequest) -> str:
        prompt = prompt_of(request)
        letter = self.decisions[_stage(prompt)].pop(0)
        role = "meta" if "editor-in-chief" in prompt else "review"
        return reply(rationale=f"{role} says {letter}", decision="Perfect" if letter == "P" else "Imperfect")


FULL = answer("There were 400 sales.", plan="Count the rows of sales.", sql=["SELECT count(*) AS n FROM sales"])


def _judge(tmp_path: Path, sales_db: Path, script, a=FULL, **options):
    model, provider = scripted(script)
    ctx = shop_context(tmp_path, sales_db, [question()], model)
    return get_scorer("peer-review", **options).judge(question(), a, ctx), provider


def test_majority_and_unanimity() -> None:
    assert majority([True, True, False]) and not majority([True, False, False])
    assert not majority([True, False])  # a tie is not a majority: Imperfect
    assert unanimous([True, True, True]) and unanimous([False]) and not unanimous([True, False, True])


def test_three_reviewers_and_three_meta_reviewers_per_stage(tmp_path: Path, sales_db: Path) -> None:
    panel = Panel({"planning": ("PPI", "PPP"), "tool_employment": ("III", "IPI"), "synthesis": ("PPP", "PPI")})
    result, provider = _judge(tmp_path, sales_db, panel)
    assert result.failed is None
    assert len(provider.requests) == 18  # 3 stages x (3 reviewers + 3 meta-reviewers)
    assert result.scores == {
        "peer-review": 0.0,
        "peer-review.planning": 1.0,
        "peer-review.tool_employment": 0.0,
        "peer-review.synthesis": 1.0,
    }
    stages = result.sub_scores["stages"]
    assert stages["planning"]["reviewer_perfect"] and not stages["planning"]["reviewer_unanimous"]
    assert stages["planning"]["meta_unanimous"] and stages["planning"]["perfect"]
    assert not stages["tool_employment"]["reviewer_perfect"] and stages["tool_employment"]["reviewer_unanimous"]
    assert not stages["tool_employment"]["meta_unanimous"] and not stages["tool_employment"]["perfect"]
    assert stages["synthesis"]["reviewer_unanimous"] and not stages["synthesis"]["meta_unanimous"]
    assert result.rationale == "IP Perfect, TE Imperfect, IS Perfect"
    # every evaluator samples at 0.7 with its own seed; meta-reviewers read the reviews
    first = provider.requests[:6]
    assert {r.temperature for r in provider.requests} == {0.7}
    assert [r.seed for r in first] == [0, 1, 2, 3, 4, 5]
    meta = prompt_of(first[3])
    assert "Reviewer 1: Perfect. Rationale: review says P" in meta and "Reviewer 3: Imperfect" in meta
    # the guidance of the paper's revision is in every prompt; each stage sees what it judges
    for request in provider.requests:
        text = prompt_of(request)
        assert "not the whole table" in text and "compatible types" in text
        assert "CREATE TABLE sales" in text
    tools = prompt_of(provider.requests[6])
    assert "SELECT count(*) AS n FROM sales" in tools and "400" in tools
    assert "There were 400 sales." in prompt_of(provider.requests[12])
    assert [e.role for e in result.trace[:4]] == [
        "reviewer 1 / planning",
        "reviewer 2 / planning",
        "reviewer 3 / planning",
        "meta-reviewer 1 / planning",
    ]


def test_perfect_in_all_stages(tmp_path: Path, sales_db: Path) -> None:
    panel = Panel({s: ("PIP", "PPI") for s in STAGES})
    result, _ = _judge(tmp_path, sales_db, panel)
    assert result.scores["peer-review"] == 1.0


def test_a_tie_among_meta_reviewers_is_imperfect(tmp_path: Path, sales_db: Path) -> None:
    panel = Panel({s: ("P", "PI") for s in STAGES})
    result, provider = _judge(tmp_path, sales_db, panel, reviewers=1, meta_reviewers=2)
    assert len(provider.requests) == 9
    assert result.scores["peer-review.planning"] == 0.0 and result.scores["peer-review"] == 0.0


def test_a_missing_stage_is_not_reviewed(tmp_path: Path, sales_db: Path) -> None:
    panel = Panel({s: ("PPP", "PPP") for s in STAGES})
    no_plan = answer("There were 400 sales.", sql=["SELECT count(*) AS n FROM sales"])
    result, provider = _judge(tmp_path, sales_db, panel, a=no_plan)
    assert len(provider.requests) == 12
    assert result.scores["peer-review.planning"] is None and result.scores["peer-review"] is None
    assert result.scores["peer-review.synthesis"] == 1.0
    assert result.sub_scores["stages"]["planning"] == {"skipped": "the answer has no plan"}


def test_a_reply_that_stays_invalid_fails_the_judgement(tmp_path: Path, sales_db: Path) -> None:
    script = [reply(rationale="fine", decision="Perfect")] * 7 + ["Final Decision: Perfect", "Perfect!"]
    result, provider = _judge(tmp_path, sales_db, script)
    assert result.failed and "reviewer 2 / tool_employment" in result.failed
    assert all(v is None for v in result.scores.values())
    assert result.trace[-1].reply == "Perfect!" and result.trace[-1].rejected == ["Final Decision: Perfect"]
    assert len(provider.requests) == 9  # nothing asked after the failure
    assert result.sub_scores["failed"] is True


def test_table_5_summary() -> None:
    def stage(reviewer: bool, r_unanimous: bool, perfect: bool, m_unanimous: bool) -> dict:
        return {
            "reviewer_perfect": reviewer,
            "reviewer_unanimous": r_unanimous,
            "perfect": perfect,
            "meta_unanimous": m_unanimous,
        }

    judged = [
        {"stages": {s: stage(True, True, True, True) for s in STAGES}},
        {
            "stages": {
                **{s: stage(True, False, False, True) for s in STAGES},
                "planning": stage(True, True, True, False),
            }
        },
        {
            "stages": {
                "planning": {"skipped": "the answer has no plan"},
                **{s: stage(False, True, False, True) for s in STAGES[1:]},
            }
        },
        {"stages": {}, "failed": True},
    ]
    summary = summarize_peer_review(judged)
    rows = {r.stage: r for r in summary.stages}
    assert summary.failed == 1
    assert rows["planning"].answers == 2 and rows["planning"].perfect_rate == 1.0
    assert rows["planning"].reviewer_agreement == 1.0 and rows["planning"].meta_agreement == 0.5
    assert rows["synthesis"].answers == 3
    assert rows["synthesis"].reviewer_perfect_rate == pytest.approx(2 / 3)
    assert rows["synthesis"].perfect_rate == pytest.approx(1 / 3)
    assert rows["synthesis"].reviewer_agreement == pytest.approx(2 / 3) and rows["synthesis"].meta_agreement == 1.0
    assert summary.all_stages_answers == 2 and summary.all_stages_perfect_rate == 0.5
