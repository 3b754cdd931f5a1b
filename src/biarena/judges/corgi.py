"""`corgi`: CORGI's atomized judge: a discriminator picks the sub-metrics, one scoring agent per dimension scores them.

SQL SER is measured from the answer's statements, never asked of a model. A dimension is the mean of its applicable
sub-metrics; the final score is the mean of the applicable dimensions, with SER put on the rubric's scale there only
(its raw fraction is what `corgi.ser` records).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from biarena.db import SqlProblem
from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry
from biarena.judges.judge_prompts import steps_text
from biarena.judges.rubric import CorgiRubric, corgi_rubric
from biarena.judges.score_schema import score_schema
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

DEFAULT_RUBRIC = "corgi.yaml"

ANSWER_CHARS = 6000
"""The answer text a judge reads; a longer one is cut there and the judge is told so."""

DIMENSIONS = {
    "structure": ("structure", "argument soundness, logical coherence and concision"),
    "ser": ("SER", "share of the answer's SQL statements that ran (0-1, put on the rubric's scale in the score)"),
    "data_sense": ("data sense", "adequate information, trends noticed, a sound choice of model"),
    "insightfulness": ("insight", "thinking beyond the obvious, depth of root causes, fitting assumptions"),
    "operational_implementability": ("implementability", "actionable steps with a plan in time"),
    "purpose_alignment": ("purpose", "oriented to the goal and to the stakeholders"),
    "compliance": ("compliance", "risk, regulation and ethics taken care of"),
}
"""The dimensions of the built-in rubric, in its order: each one's table label and what it measures."""


def corgi_infos(judge: str, label: str, how: str) -> tuple[ScoreInfo, ...]:
    """The scores a CORGI judge declares: its final score (0-5) then each dimension's."""
    final = ScoreInfo(
        name=judge,
        label=label,
        description=f"CORGI's final score ({how}): the mean of the applicable dimensions, 0-5",
        range=(0.0, 5.0),
        needs=frozenset({"model"}),
        headline=True,
        kind="judge",
    )
    dimensions = tuple(
        ScoreInfo(
            name=f"{judge}.{key}",
            label=short,
            description=f"CORGI dimension: {what}",
            range=(0.0, 1.0) if key == "ser" else (0.0, 5.0),
            needs=frozenset({"model"}),
            kind="judge",
        )
        for key, (short, what) in DIMENSIONS.items()
    )
    return (final, *dimensions)


SYSTEM = (
    "You are an expert evaluator of business analyses written by data analysts. You judge the answer only as "
    "written, strictly against the criteria given, and reply with JSON only."
)


def corgi_type(question: Question) -> str | None:
    """The CORGI question type of a question (`type2`), from its `corgi:typeN` label."""
    for label in question.labels:
        if label.startswith("corgi:type") and label[len("corgi:") :].removeprefix("type").isdigit():
            return label[len("corgi:") :]
    return None


def answer_for_judge(answer: Answer) -> str:
    """The answer text as a judge reads it (cut at ANSWER_CHARS, saying so)."""
    text = (answer.text or "").strip()
    if not text:
        return "(the answer has no text)"
    if len(text) > ANSWER_CHARS:
        return text[:ANSWER_CHARS] + f"\n[... the answer continues for {len(text) - ANSWER_CHARS} more characters]"
    return text


@dataclass(frozen=True)
class SqlSuccess:
    """SQL success execution rate of one answer."""

    ran: int
    total: int

    @property
    def fraction(self) -> float:
        """Statements that ran over statements run (0 when the answer ran none)."""
        return self.ran / self.total if self.total else 0.0

    @property
    def reason(self) -> str:
        """The fraction in words."""
        if not self.total:
            return "the answer ran no SQL statement"
        return f"{self.ran} of {self.total} SQL statements ran without error"


def sql_success(question: Question, answer: Answer, context: ScorerContext) -> SqlSuccess:
    """SER from the statements the answer ran; an answer with only a final SQL is judged by running it."""
    if answer.steps:
        return SqlSuccess(sum(1 for s in answer.steps if s.ok), len(answer.steps))
    if answer.final_sql:
        with context.scoring.lock:  # the scoring context's caches are not shared across threads
            outcome = context.scoring.answer_result(question, answer)
        return SqlSuccess(0 if isinstance(outcome, SqlProblem) else 1, 1)
    return SqlSuccess(0, 0)


def metric_block(rubric: CorgiRubric, keys: list[str]) -> str:
    """The sub-metrics' definitions and anchors as a prompt lists them."""
    lines = []
    for key in keys:
        metric = rubric.sub_metric(key)
        lines.append(f"- {key} ({metric.name}): {metric.definition.strip()}")
        lines += [f"    {score}: {text.strip()}" for score, text in sorted(metric.anchors.items())]
    return "\n".join(lines)


REASON_CHARS = 240
"""A sub-metric's reason is one sentence: bounded in the schema, so that a model held to the schema (llama.cpp's
grammar) cannot write past the reply's token budget and cut its JSON short."""


def scores_schema(rubric: CorgiRubric, required: list[str], optional: list[str] = ()) -> dict[str, Any]:
    """JSON schema of a scoring reply: per sub-metric a one-sentence reason and an integer score on the scale.

    `optional` sub-metrics may be scored null (the answer does not call for them).
    """
    low, high = rubric.scale
    properties: dict[str, Any] = {}
    for key in [*required, *optional]:
        score: dict[str, Any] = score_schema(low, high)
        if key in optional:
            score = {"anyOf": [score, {"type": "null"}]}
        properties[key] = {
            "type": "object",
            "properties": {"reason": {"type": "string", "maxLength": REASON_CHARS}, "score": score},
            "required": ["reason", "score"],
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": properties,
        "required": [*required, *optional],
        "additionalProperties": False,
    }


def reply_tokens(count: int) -> int:
    """A reply's token budget for scoring `count` sub-metrics: a reason of at most `REASON_CHARS` characters (about
    60 tokens), its score and the JSON around them, each."""
    return 64 + 100 * count


def header(rubric: CorgiRubric, qtype: str, question: Question, answer: Answer) -> str:
    """The question type, question and answer, as every CORGI prompt opens; with no reference to compare with, the
    judge is also shown the queries the answer ran and their results, so it can see whether the prose follows
    them."""
    kind = rubric.question_types.get(qtype, qtype)
    text = f"Question type: {kind}\nQuestion: {question.text.strip()}\n\nAnswer:\n{answer_for_judge(answer)}\n"
    if answer.steps:
        text += f"\nThe queries the answer ran, with their results:\n{steps_text(answer.steps)}\n"
    return text


@dataclass
class Scored:
    """Sub-metric scores as the scoring agents gave them."""

    values: dict[str, float]
    reasons: dict[str, str]


def opening(question: Question, answer: Answer, context: ScorerContext) -> tuple[CorgiRubric, str, SqlSuccess]:
    """What a CORGI judge starts from: the rubric, the question's type and the answer's SQL success."""
    return corgi_rubric(context.rubric or {}), corgi_type(question) or "", sql_success(question, answer, context)


def failed_judgement(
    produces: Iterable[str], qtype: str, ser: SqlSuccess, trace: list[TraceEntry], error: Exception
) -> Judgement:
    """The judgement of an answer whose judging failed (a reply that stayed invalid): no scores, with the reason."""
    return Judgement(
        scores=dict.fromkeys(produces),
        sub_scores={"question_type": qtype, "ser": {"ran": ser.ran, "total": ser.total}},
        trace=trace,
        failed=str(error),
    )


def aggregate(
    rubric: CorgiRubric, applicable: list[str], scored: Scored, ser: SqlSuccess, prefix: str
) -> tuple[dict[str, float | None], dict[str, float]]:
    """Dimension scores (SER as its raw fraction) and the final score: the mean of the applicable dimensions with
    SER on the rubric's scale. Returns the named scores and the dimension values used in the final mean."""
    low, high = rubric.scale
    dimensions: dict[str, float] = {}
    on_scale: dict[str, float] = {}
    for dimension in rubric.dimensions:
        keys = [m.key for m in dimension.sub_metrics if m.key in applicable]
        if not keys:
            continue
        computed = [rubric.sub_metric(k) for k in keys if rubric.sub_metric(k).computed == "ser"]
        if computed:
            dimensions[dimension.key] = ser.fraction
            on_scale[dimension.key] = low + ser.fraction * (high - low)
            continue
        values = [scored.values[k] for k in keys if k in scored.values]
        if values:
            dimensions[dimension.key] = fmean(values)
            on_scale[dimension.key] = dimensions[dimension.key]
    scores: dict[str, float | None] = {prefix: fmean(on_scale.values()) if on_scale else None}
    scores.update({f"{prefix}.{key}": value for key, value in dimensions.items()})
    return scores, on_scale


def details(
    rubric: CorgiRubric,
    qtype: str,
    applicable: list[str],
    picked: list[str],
    scored: Scored,
    ser: SqlSuccess,
    on_scale: dict[str, float],
) -> dict[str, Any]:
    """The judgement's parts for its Score records: every sub-metric with its score and reason, the dimensions."""
    general = set(rubric.general(qtype))
    metrics: dict[str, Any] = {}
    for key in applicable:
        metric = rubric.sub_metric(key)
        entry: dict[str, Any] = {
            "dimension": rubric.dimension_of(key).key,
            "coverage": "general" if key in general else "unique",
        }
        if metric.computed == "ser":
            entry.update(score=ser.fraction, reason=ser.reason, ran=ser.ran, total=ser.total)
        else:
            entry.update(score=scored.values.get(key), reason=scored.reasons.get(key))
        metrics[key] = entry
    return {
        "question_type": qtype,
        "sub_metrics": metrics,
        "picked": picked,
        "dimensions_on_scale": on_scale,
        "ser": {"ran": ser.ran, "total": ser.total, "fraction": ser.fraction},
    }


def read_scores(reply: dict[str, Any], keys: list[str]) -> Scored:
    """Scores and reasons from a validated scoring reply (null scores left out)."""
    values: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for key in keys:
        item = reply.get(key) or {}
        if item.get("score") is not None:
            values[key] = float(item["score"])
            reasons[key] = str(item.get("reason", "")).strip()
    return Scored(values, reasons)


class CorgiJudge(JudgeScorer):
    """CORGI's atomized multi-agent judge: one discriminator call and one call per scoring agent at most."""

    name = "corgi"
    version = "3"
    infos = corgi_infos("corgi", "CORGI", "a discriminator, then one scoring agent per dimension")
    needs_model = True
    default_rubric = DEFAULT_RUBRIC

    def __init__(self, **options: object) -> None:
        self.options = options

    def check_rubric(self, rubric: dict[str, Any], source: str) -> None:
        """Refuse a rubric that is not a valid CORGI rubric (one line naming the problem)."""
        corgi_rubric(rubric, source)

    def applies(self, question: Question) -> bool:
        """CORGI judges explanatory, predictive and recommendational questions (types 2-4)."""
        return corgi_type(question) in {"type2", "type3", "type4"}

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Discriminate, score each dimension, aggregate."""
        rubric, qtype, ser = opening(question, answer, context)
        trace: list[TraceEntry] = []
        general = rubric.general(qtype)
        try:
            picked = self._discriminate(rubric, qtype, question, answer, context, trace, general)
            applicable = [
                m.key for d in rubric.dimensions for m in d.sub_metrics if m.key in general or m.key in picked
            ]
            scored = Scored({}, {})
            for dimension in rubric.dimensions:
                keys = [m.key for m in dimension.sub_metrics if m.key in applicable and m.computed is None]
                if not keys:
                    continue
                messages = [
                    {"role": "system", "content": SYSTEM},
                    {
                        "role": "user",
                        "content": header(rubric, qtype, question, answer)
                        + f"\nScore the answer on {dimension.name}: each sub-metric below from "
                        f"{rubric.scale[0]} to {rubric.scale[1]} against its anchors (a score between anchors "
                        f"is allowed), with a one-sentence reason (at most {REASON_CHARS} characters).\n"
                        + metric_block(rubric, keys),
                    },
                ]
                reply = context.ask(
                    trace, dimension.name, messages, scores_schema(rubric, keys), max_tokens=reply_tokens(len(keys))
                )
                part = read_scores(reply, keys)
                scored.values.update(part.values)
                scored.reasons.update(part.reasons)
        except JudgeReplyError as error:
            return failed_judgement(self.produces, qtype, ser, trace, error)
        scores, on_scale = aggregate(rubric, applicable, scored, ser, self.name)
        extras = sorted(set(picked) - set(general))
        rationale = f"{len(on_scale)} dimensions over {len(applicable)} sub-metrics" + (
            f" (the discriminator added {', '.join(extras)})" if extras else ""
        )
        return Judgement(
            scores=scores,
            sub_scores=details(rubric, qtype, applicable, picked, scored, ser, on_scale),
            rationale=rationale,
            trace=trace,
        )

    def _discriminate(
        self,
        rubric: CorgiRubric,
        qtype: str,
        question: Question,
        answer: Answer,
        context: ScorerContext,
        trace: list[TraceEntry],
        general: list[str],
    ) -> list[str]:
        """The discriminator's pick among the type's optional sub-metrics (the general ones are always kept)."""
        candidates = rubric.unique(qtype)
        if not candidates:
            return []
        always = ", ".join(general) or "none"
        prompt = (
            header(rubric, qtype, question, answer)
            + f"\nThese sub-metrics are always scored for this question type: {always}.\n"
            "Choose which of the following optional sub-metrics this answer should also be scored on: those whose "
            "subject the answer takes up or that its question type calls for. Give their keys.\n"
            + "\n".join(
                f"- {key}: {rubric.sub_metric(key).definition.strip()}"
                + (
                    " (usually applies to this question type)"
                    if qtype in rubric.sub_metric(key).coverage.unique
                    else ""
                )
                for key in candidates
            )
        )
        schema = {
            "type": "object",
            "properties": {
                "sub_metrics": {
                    "type": "array",
                    "items": {"type": "string", "enum": candidates},
                    "maxItems": len(candidates),
                }
            },
            "required": ["sub_metrics"],
            "additionalProperties": False,
        }
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
        reply = context.ask(trace, "discriminator", messages, schema, max_tokens=24 + 12 * len(candidates))
        chosen = set(reply.get("sub_metrics") or [])
        return [key for key in candidates if key in chosen]
