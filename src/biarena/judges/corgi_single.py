"""`corgi-single`: CORGI's single-LLM baseline: one call scores every sub-metric; same output shape as `corgi`."""

from biarena.judges.base import Judgement, JudgeReplyError, ScorerContext, TraceEntry
from biarena.judges.corgi import (
    REASON_CHARS,
    SYSTEM,
    CorgiJudge,
    aggregate,
    corgi_infos,
    details,
    failed_judgement,
    header,
    metric_block,
    opening,
    read_scores,
    reply_tokens,
    scores_schema,
)
from biarena.records import Answer, Question


class CorgiSingleJudge(CorgiJudge):
    """One model call scores the type's sub-metrics (its typical optional ones may be scored null); no discriminator.

    The rubric, the questions it applies to and the aggregation are `corgi`'s.
    """

    name = "corgi-single"
    version = "3"
    infos = corgi_infos("corgi-single", "CORGI single", "one call scores every sub-metric")

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Score every dimension in one call, then aggregate as `corgi` does."""
        rubric, qtype, ser = opening(question, answer, context)
        trace: list[TraceEntry] = []
        general = rubric.general(qtype)
        optional = [k for k in rubric.unique(qtype) if qtype in rubric.sub_metric(k).coverage.unique]
        asked = [k for k in general if rubric.sub_metric(k).computed is None]
        keys = [*asked, *optional]
        prompt = header(rubric, qtype, question, answer) + (
            f"\nScore the answer on every sub-metric below from {rubric.scale[0]} to {rubric.scale[1]} against its "
            f"anchors (a score between anchors is allowed), with a one-sentence reason (at most {REASON_CHARS} "
            "characters)."
        )
        if optional:
            prompt += f" Score {', '.join(optional)} null when the answer does not call for it."
        prompt += "\n" + metric_block(rubric, keys)
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
        try:
            reply = context.ask(
                trace,
                "single evaluator",
                messages,
                scores_schema(rubric, asked, optional),
                max_tokens=reply_tokens(len(keys)),
            )
        except JudgeReplyError as error:
            return failed_judgement(self.produces, qtype, ser, trace, error)
        scored = read_scores(reply, keys)
        picked = [k for k in optional if k in scored.values]
        applicable = [m.key for d in rubric.dimensions for m in d.sub_metrics if m.key in general or m.key in picked]
        scores, on_scale = aggregate(rubric, applicable, scored, ser, self.name)
        return Judgement(
            scores=scores,
            sub_scores=details(rubric, qtype, applicable, picked, scored, ser, on_scale),
            rationale=f"{len(on_scale)} dimensions over {len(applicable)} sub-metrics in one call",
            trace=trace,
        )
