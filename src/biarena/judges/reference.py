"""`reference`: an answer against the question's reference answer (long-form DB QA, reference-based evaluation).

Conclusive questions get Match / Not Match with a rationale (`reference.match`, 1 or 0); interpretive ones a score
from 1 to 5 (`reference.score`). Which questions are which comes from the rubric's `kinds` (by label).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from biarena.errors import FormatError
from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry
from biarena.judges.judge_prompts import failed, prompt_texts, render, rubric_data, user
from biarena.judges.score_schema import score_schema
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

RATIONALE_CHARS = 400
CONCLUSIVE_SCHEMA = {
    "type": "object",
    "properties": {
        "rationale": {"type": "string", "maxLength": RATIONALE_CHARS},
        "conclusion": {"type": "string", "enum": ["Match", "Not Match"]},
    },
    "required": ["rationale", "conclusion"],
}
INTERPRETIVE_SCHEMA = {
    "type": "object",
    "properties": {
        "rationale": {"type": "string", "maxLength": RATIONALE_CHARS},
        "score": score_schema(1, 5),
    },
    "required": ["rationale", "score"],
}
KINDS = ("conclusive", "interpretive")
TYPE_PREFIXES = ("dbqa:", "corgi:type", "bibench:", "bis:")
"""Label prefixes that name a question's type, in the order they are looked for."""


def question_kind(question: Question, rubric: Mapping[str, Any]) -> str:
    """`conclusive` or `interpretive`: from the first of the question's labels the rubric's `kinds` names."""
    kinds = rubric.get("kinds") or {}
    for label in question.labels:
        if label in kinds:
            return str(kinds[label])
    return str(rubric.get("default_kind", "interpretive"))


def reference_claim(reference: str, rubric: Mapping[str, Any]) -> str:
    """The reference as the judge compares against it: the text before any of the rubric's `hide_after` markers."""
    cut = len(reference)
    for marker in rubric.get("hide_after") or []:
        at = reference.find(str(marker))
        if at != -1:
            cut = min(cut, at)
    return reference[:cut].strip()


def type_label(question: Question) -> str:
    """The label that names the question's type (`dbqa:conclusive`, `corgi:type2`, ...), else `other`."""
    for prefix in TYPE_PREFIXES:
        for label in question.labels:
            if label.startswith(prefix):
                return label.split("/")[0]
    return "other"


class ReferenceOptions(Options):
    """How long the judge's reply may be."""

    max_tokens: int = Field(200, ge=16)
    """Tokens the judge's reply may take."""


class ReferenceJudge(JudgeScorer):
    """Match / Not Match for conclusive questions, 1-5 for interpretive ones, against the reference answer."""

    name = "reference"
    version = "2"
    infos = (
        ScoreInfo(
            "reference.match",
            "ref match",
            "a conclusive question's answer matches its reference answer (1) or not (0)",
            needs=frozenset({"reference", "model"}),
            headline=True,
            kind="judge",
        ),
        ScoreInfo(
            "reference.score",
            "ref 1-5",
            "how well an interpretive question's answer agrees with its reference answer, 1-5",
            range=(1.0, 5.0),
            needs=frozenset({"reference", "model"}),
            headline=True,
            kind="judge",
        ),
    )
    needs_model = True
    default_rubric = "reference.yaml"

    Options = ReferenceOptions
    options: ReferenceOptions

    def check_rubric(self, data: dict[str, Any], source: str) -> None:
        """A one-line FormatError when a rubric lacks a prompt or names a kind other than conclusive/interpretive."""
        prompt_texts(data, ("conclusive", "interpretive"), source)
        kinds = data.get("kinds") or {}
        if not isinstance(kinds, dict):
            raise FormatError(f"{source}: `kinds` maps labels to conclusive or interpretive")
        for label, kind in [*kinds.items(), ("default_kind", data.get("default_kind", "interpretive"))]:
            if kind not in KINDS:
                raise FormatError(f"{source}: kind '{kind}' for '{label}' is not conclusive or interpretive")

    def applies(self, question: Question) -> bool:
        """Questions with a reference answer."""
        return bool(question.reference_answer and question.reference_answer.strip())

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Compare the answer's text with the reference in one model call."""
        rubric = rubric_data(context, self.default_rubric, self.name)
        prompts = prompt_texts(rubric, ("conclusive", "interpretive"))
        self.check_rubric(rubric, "the rubric")
        kind = question_kind(question, rubric)
        name = "reference.match" if kind == "conclusive" else "reference.score"
        reference = reference_claim(question.reference_answer or "", rubric)
        sub: dict[str, Any] = {"kind": kind, "question_type": type_label(question)}
        text = (answer.text or "").strip()
        if not text:
            # nothing to compare: the lowest verdict on each scale, without asking
            value = 0.0 if kind == "conclusive" else 1.0
            return Judgement({name: value}, {**sub, "no_answer": True}, "the answer has no text")
        trace: list[TraceEntry] = []
        prompt = render(prompts[kind], kind, question=question.text, reference=reference, answer=text)
        schema = CONCLUSIVE_SCHEMA if kind == "conclusive" else INTERPRETIVE_SCHEMA
        try:
            reply = context.ask(trace, kind, user(prompt), schema, max_tokens=self.options.max_tokens)
        except JudgeReplyError as error:
            return failed(str(error), (name,), trace, sub)
        rationale = str(reply["rationale"]).strip()
        if kind == "conclusive":
            sub["conclusion"] = reply["conclusion"]
            value = 1.0 if reply["conclusion"] == "Match" else 0.0
        else:
            value = float(reply["score"])
        return Judgement({name: value}, sub, rationale or None, trace)


@dataclass(frozen=True)
class ReferenceSummary:
    """Reference-based figures of one question type: DB QA Table 2's match rate and match score."""

    question_type: str
    answers: int
    """Answers with a judgement (failed ones included)."""
    failed: int
    """Judgements that could not be made."""
    conclusive: int
    """Conclusive answers judged."""
    match_rate: float | None
    """Share of conclusive answers judged a Match."""
    interpretive: int
    """Interpretive answers judged."""
    mean_score: float | None
    """Mean 1-5 score of interpretive answers."""


def summarize_reference(judged: Iterable[tuple[Question, Mapping[str, float | None]]]) -> list[ReferenceSummary]:
    """Match rate and mean score by question type (then `all`) from each question with its `reference.*` scores."""
    groups: dict[str, list[Mapping[str, float | None]]] = {}
    for question, scores in judged:
        groups.setdefault(type_label(question), []).append(scores)
        groups.setdefault("all", []).append(scores)
    out = []
    for kind in sorted(groups, key=lambda k: (k == "all", k)):
        rows = groups[kind]
        matches = [s["reference.match"] for s in rows if s.get("reference.match") is not None]
        scores = [s["reference.score"] for s in rows if s.get("reference.score") is not None]
        out.append(
            ReferenceSummary(
                question_type=kind,
                answers=len(rows),
                failed=sum(1 for s in rows if all(v is None for v in s.values())),
                conclusive=len(matches),
                match_rate=sum(matches) / len(matches) if matches else None,  # type: ignore[arg-type]
                interpretive=len(scores),
                mean_score=sum(scores) / len(scores) if scores else None,  # type: ignore[arg-type]
            )
        )
    return out
