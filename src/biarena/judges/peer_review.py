"""`peer-review`: reference-free multi-agent review of each stage of an answer (long-form DB QA 4.2.2).

For each stage (interaction planning = the plan, tool employment = the SQL with its results, information synthesis
= the answer text) `reviewers` reviewers (temperature 0.7, distinct seeds) decide Perfect or Imperfect with a
rationale; `meta_reviewers` meta-reviewers read those reviews and decide; the majority of the meta-reviewers rules
(a tie is Imperfect). A stage the answer lacks (no plan, no SQL, no text) is not reviewed and scores None, and so
does "perfect in all stages".
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry
from biarena.judges.judge_prompts import database_text, failed, prompt_texts, render, rubric_data, steps_text, user
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

STAGES = ("planning", "tool_employment", "synthesis")
"""The stages reviewed, in order (DB QA's IP, TE and IS)."""
PROMPTS = tuple(f"{stage}_{role}" for stage in STAGES for role in ("review", "meta"))
STAGE_LABELS = {"planning": "IP", "tool_employment": "TE", "synthesis": "IS"}
DECISION_SCHEMA = {
    "type": "object",
    "properties": {
        "rationale": {"type": "string", "maxLength": 500},
        "decision": {"type": "string", "enum": ["Perfect", "Imperfect"]},
    },
    "required": ["rationale", "decision"],
}


def majority(votes: list[bool]) -> bool:
    """True when more than half the votes say Perfect (a tie is not a majority)."""
    return sum(votes) * 2 > len(votes)


def unanimous(votes: list[bool]) -> bool:
    """True when every vote is the same."""
    return len(set(votes)) <= 1


def _missing(stage: str, answer: Answer) -> str | None:
    if stage == "planning" and not (answer.plan or "").strip():
        return "the answer has no plan"
    if stage == "tool_employment" and not answer.steps:
        return "the answer ran no SQL"
    if stage == "synthesis" and not (answer.text or "").strip():
        return "the answer has no text"
    return None


class PeerReviewOptions(Options):
    """How many reviewers and meta-reviewers read each stage, and how they are sampled."""

    reviewers: int = Field(3, ge=1)
    """Reviewers per stage, each deciding Perfect or Imperfect (distinct seeds)."""
    meta_reviewers: int = Field(3, ge=1)
    """Meta-reviewers per stage, reading the reviews; their majority decides."""
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    """The reviewers' sampling temperature (the paper's 0.7)."""
    max_tokens: int = Field(256, ge=16)
    """Tokens each review may take."""


class PeerReviewJudge(JudgeScorer):
    """Reviewers and meta-reviewers per stage; the meta-reviewers' majority decides Perfect or Imperfect."""

    name = "peer-review"
    version = "1"
    infos = (
        ScoreInfo(
            "peer-review",
            "peer review",
            "1 when the meta-reviewers find every stage Perfect (plan, SQL with results, answer), else 0",
            needs=frozenset({"model"}),
            headline=True,
            kind="judge",
        ),
        *(
            ScoreInfo(
                f"peer-review.{stage}",
                label,
                f"1 when the meta-reviewers find the {what} Perfect, else 0",
                needs=frozenset({"model"}),
                kind="judge",
            )
            for stage, label, what in (
                ("planning", "planning", "plan"),
                ("tool_employment", "tool use", "SQL and its results"),
                ("synthesis", "synthesis", "answer text"),
            )
        ),
    )
    needs_model = True
    default_rubric = "peer_review.yaml"

    Options = PeerReviewOptions
    options: PeerReviewOptions

    def check_rubric(self, data: dict[str, Any], source: str) -> None:
        """A one-line FormatError when a rubric lacks one of the six prompts."""
        prompt_texts(data, PROMPTS, source)

    def applies(self, question: Question) -> bool:
        """Every question: the review needs no reference."""
        return True

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Review each stage the answer has; Perfect in all stages is `peer-review`."""
        rubric = rubric_data(context, self.default_rubric, self.name)
        prompts = prompt_texts(rubric, PROMPTS)
        values = {
            "question": question.text,
            "database": database_text(context, question, answer),
            "plan": (answer.plan or "").strip() or "(no plan)",
            "sql_results": steps_text(answer.steps),
            "answer": (answer.text or "").strip() or "(no answer)",
            "guidance": str(rubric.get("guidance") or "").strip(),
        }
        trace: list[TraceEntry] = []
        stages: dict[str, dict[str, Any]] = {}
        try:
            for stage in STAGES:
                reason = _missing(stage, answer)
                stages[stage] = {"skipped": reason} if reason else self._stage(stage, prompts, values, context, trace)
        except JudgeReplyError as error:
            return failed(str(error), self.produces, trace, {"stages": stages, "failed": True})
        scores: dict[str, float | None] = {}
        for stage, result in stages.items():
            scores[f"peer-review.{stage}"] = None if result.get("skipped") else float(result["perfect"])
        judged = [v for v in scores.values() if v is not None]
        scores["peer-review"] = float(all(judged)) if len(judged) == len(STAGES) else None
        verdicts = ", ".join(
            f"{STAGE_LABELS[s]} {'-' if r.get('skipped') else ('Perfect' if r['perfect'] else 'Imperfect')}"
            for s, r in stages.items()
        )
        return Judgement(
            scores={name: scores[name] for name in self.produces},
            sub_scores={"stages": stages, **self.options.model_dump(include={"reviewers", "meta_reviewers"})},
            rationale=verdicts,
            trace=trace,
        )

    def _stage(
        self, stage: str, prompts: dict[str, str], values: dict[str, str], context: ScorerContext, trace: list
    ) -> dict[str, Any]:
        reviews = self._decisions(
            stage,
            "reviewer",
            prompts[f"{stage}_review"],
            f"{stage}_review",
            values,
            context,
            trace,
            first_seed=context.seed,
        )
        written = "\n\n".join(
            f"Reviewer {i + 1}: {r['decision']}. Rationale: {r['rationale']}" for i, r in enumerate(reviews)
        )
        metas = self._decisions(
            stage,
            "meta-reviewer",
            prompts[f"{stage}_meta"],
            f"{stage}_meta",
            {"reviews": written, **values},
            context,
            trace,
            first_seed=context.seed + self.options.reviewers,
        )
        review_votes = [r["decision"] == "Perfect" for r in reviews]
        meta_votes = [m["decision"] == "Perfect" for m in metas]
        return {
            "reviews": reviews,
            "meta_reviews": metas,
            "reviewer_perfect": majority(review_votes),
            "reviewer_unanimous": unanimous(review_votes),
            "meta_unanimous": unanimous(meta_votes),
            "perfect": majority(meta_votes),
        }

    def _decisions(
        self,
        stage: str,
        role: str,
        template: str,
        name: str,
        values: dict[str, str],
        context: ScorerContext,
        trace: list,
        *,
        first_seed: int,
    ) -> list[dict[str, str]]:
        """Each reviewer's (or meta-reviewer's) decision and rationale on the stage, seeds from `first_seed` on."""
        count = self.options.reviewers if role == "reviewer" else self.options.meta_reviewers
        decisions = []
        for i in range(count):
            reply = context.ask(
                trace,
                f"{role} {i + 1} / {stage}",
                user(render(template, name, **values)),
                DECISION_SCHEMA,
                temperature=self.options.temperature,
                seed=first_seed + i,
                max_tokens=self.options.max_tokens,
            )
            decisions.append({"decision": reply["decision"], "rationale": str(reply["rationale"]).strip()})
        return decisions


@dataclass(frozen=True)
class StageSummary:
    """One stage's row of DB QA Table 5."""

    stage: str
    answers: int
    """Answers whose stage was reviewed."""
    reviewer_perfect_rate: float | None
    """Share of answers the reviewers' majority found Perfect."""
    reviewer_agreement: float | None
    """Share of answers on which the reviewers were unanimous."""
    perfect_rate: float | None
    """Share of answers the meta-reviewers' majority found Perfect (the judge's verdict)."""
    meta_agreement: float | None
    """Share of answers on which the meta-reviewers were unanimous."""


@dataclass(frozen=True)
class PeerReviewSummary:
    """DB QA Table 5's figures over a set of answers, and the share perfect in all stages."""

    stages: list[StageSummary]
    all_stages_answers: int
    """Answers with every stage reviewed."""
    all_stages_perfect_rate: float | None
    """Share of those the meta-reviewers found Perfect in every stage."""
    failed: int
    """Judgements that could not be made."""


def _rate(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def summarize_peer_review(judged: Iterable[Mapping[str, Any]]) -> PeerReviewSummary:
    """Perfect rate and agreement per stage for reviewers and meta-reviewers (Table 5) from each judgement's
    `sub_scores` (a failed judgement's are marked `failed` and counted apart)."""
    per_stage: dict[str, list[Mapping[str, Any]]] = {s: [] for s in STAGES}
    all_flags: list[bool] = []
    failures = 0
    for sub in judged:
        stages = sub.get("stages") or {}
        if sub.get("failed") or not stages:
            failures += 1
            continue
        complete = [s for s in STAGES if "perfect" in (stages.get(s) or {})]
        for stage in complete:
            per_stage[stage].append(stages[stage])
        if len(complete) == len(STAGES):
            all_flags.append(all(stages[s]["perfect"] for s in STAGES))
    rows = [
        StageSummary(
            stage=stage,
            answers=len(items),
            reviewer_perfect_rate=_rate([bool(i["reviewer_perfect"]) for i in items]),
            reviewer_agreement=_rate([bool(i["reviewer_unanimous"]) for i in items]),
            perfect_rate=_rate([bool(i["perfect"]) for i in items]),
            meta_agreement=_rate([bool(i["meta_unanimous"]) for i in items]),
        )
        for stage, items in per_stage.items()
    ]
    return PeerReviewSummary(rows, len(all_flags), _rate(all_flags), failures)
