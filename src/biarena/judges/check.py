"""How far to trust a judge: good answers against degraded copies whose order is known without a model.

For questions with a simulator-known truth (corgi-synth types 2-4), a good answer is written as an analyst would
(`biarena.judges.analyst`: plan, figures from its own queries, the reference's finding, a recommendation) and each
degradation of `biarena.judges.degrade` makes a worse copy of about the same length and wording. The judge scores
both; the figure per degradation is how often the good answer scores higher (ties are not higher), with a 95% Wilson
interval. The trivial rules of `biarena.judges.baselines` (shorter, longer, reference overlap, random) run on the
same pairs; the headline is the judge's margin over the best of them, with a 95% paired bootstrap interval.
Self-consistency: each good answer judged again with another seed at the judge's temperature, and how often the two
scores are equal.
"""

import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from biarena.agents import AgentEnv
from biarena.errors import UsageError
from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext
from biarena.judges.baselines import BASELINES
from biarena.judges.check_figures import (
    Consistency,
    DegradationFigures,
    Margin,
    PairResult,
    Rate,
    degradations,
    figures,
    margin,
    outcome,
    wilson,
)
from biarena.judges.check_pairs import Pair, build_pairs, corgi_type_label
from biarena.judges.insightbench_pairs import insightbench_pairs, is_insightbench
from biarena.judges.pairwise import PairwiseJudge
from biarena.judges.rubric import LoadedRubric, load_builtin_rubric
from biarena.llm import Model, ModelError
from biarena.records import Answer, Question, Step
from biarena.scoring.scoring_context import ScoringContext

CONSISTENCY_SEED = 1000
"""Offset of the seed of a good answer's second judgement."""


@dataclass
class CheckReport:
    """Everything `biarena judge check` measured."""

    judge: str
    judge_version: str
    model: str | None
    benchmark: str
    seed: int
    temperature: float
    rubric_hash: str | None
    questions: int
    degradations: list[DegradationFigures]
    overall: DegradationFigures
    consistency: Consistency
    margin: Margin
    """The overall margin over the best trivial rule: the check's headline."""
    position_bias: Rate | None
    """A pairwise judge: pairs whose two orders picked opposite sides (each then a tie), over the pairs compared."""
    judgements: int
    """Judgements made: each degraded answer once, each good answer twice."""
    model_calls: int
    """Calls made to the judge model (replies from the cache not counted)."""
    prompt_tokens: int
    completion_tokens: int
    pairs: list[PairResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return asdict(self)


def _score_name(judge: JudgeScorer, judgement: Judgement, wanted: str | None) -> str | None:
    if wanted is not None:
        return wanted
    return next((name for name in judge.produces if judgement.scores.get(name) is not None), None)


def _texts(pair: Pair) -> dict[str, Any]:
    """What a check file keeps of a pair for anyone to re-judge it: the question, reference, both texts and steps."""
    return {
        "question": pair.question.text,
        "reference": pair.question.reference_answer or "",
        "good_text": pair.good.text or "",
        "degraded_text": pair.degraded.text or "",
        "plan": pair.good.plan or "",
        "good_steps": [_step_record(s) for s in pair.good.steps],
        "degraded_steps": [_step_record(s) for s in pair.degraded.steps],
    }


def _step_record(step: Step) -> dict[str, Any]:
    return step.model_dump(mode="json", include={"sql", "purpose", "columns", "preview", "row_count", "error"})


def _baselines(pair: Pair, seed: int, index: int) -> dict[str, str]:
    reference = pair.question.reference_answer or ""
    rng = random.Random(f"{seed}/baseline/{index}")
    terms = {"good": "higher", "degraded": "lower", "tie": "tie"}
    return {
        name: terms[rule(pair.good.text or "", pair.degraded.text or "", reference, rng)]
        for name, rule in BASELINES.items()
    }


def _safe_judge(judge: JudgeScorer, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
    """A judgement; a judge that breaks its promise and raises for a model failure is recorded as failed."""
    try:
        return judge.judge(question, answer, context)
    except (JudgeReplyError, ModelError) as error:
        return Judgement(scores=dict.fromkeys(judge.produces), failed=str(error))


def _pair_result(
    pair: Pair,
    index: int,
    seed: int,
    score: str | None,
    good: float | None,
    worse: float | None,
    verdict: str,
    failure: str | None,
) -> PairResult:
    """One judged pair as the report keeps it, with the trivial rules' outcomes on it."""
    return PairResult(
        question_id=pair.question.id,
        question_type=corgi_type_label(pair.question),
        degradation=pair.degradation,
        score=score,
        good=good,
        degraded=worse,
        outcome=verdict,
        failure=failure,
        baselines=_baselines(pair, seed, index),
        **_texts(pair),
    )


@dataclass(frozen=True)
class _Setting:
    """What every report of one check shares: the judge, its context, the benchmark's name and the model's usage
    when the check began."""

    judge: "JudgeScorer | PairwiseJudge"
    base: ScorerContext
    benchmark: str
    before: Any


def _report(setting: _Setting, results: list[PairResult], **figures_of_kind: Any) -> CheckReport:
    """The report of the judged pairs `results`; `figures_of_kind` gives the figures that differ by kind of judge
    (rubric_hash, questions, consistency, position_bias, judgements)."""
    model = setting.base.model
    after = model.usage.snapshot() if model else None
    before = setting.before
    return CheckReport(
        judge=setting.judge.name,
        judge_version=setting.judge.version,
        model=model.spec if model else None,
        benchmark=setting.benchmark,
        seed=setting.base.seed,
        temperature=setting.base.temperature,
        degradations=[figures(name, [r for r in results if r.degradation == name]) for name in degradations(results)],
        overall=figures("all", results),
        margin=margin(results, setting.base.seed),
        model_calls=after.calls - before.calls if after and before else 0,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens if after and before else 0,
        completion_tokens=after.completion_tokens - before.completion_tokens if after and before else 0,
        pairs=results,
        **figures_of_kind,
    )


def check_judge(
    judge: "JudgeScorer | PairwiseJudge",
    scoring: ScoringContext,
    *,
    model: Model | None,
    count: int = 20,
    seed: int = 0,
    temperature: float = 0.0,
    rubric: LoadedRubric | None = None,
    score: str | None = None,
    benchmark_name: str | None = None,
    on_judged: Callable[[int, int], None] | None = None,
) -> CheckReport:
    """Judge `count` good-vs-degraded pairs and each good answer twice; the figures per degradation and overall."""
    if count < 1:
        raise UsageError("judge check needs at least one pair (-n)")
    if judge.needs_model and model is None:
        raise UsageError(f"judge '{judge.name}' needs a model (--judge-model)")
    if score is not None and score not in getattr(judge, "produces", ()):
        raise UsageError(f"judge '{judge.name}' has no score '{score}' (it gives {', '.join(judge.produces)})")
    if rubric is None and judge.default_rubric:
        rubric = load_builtin_rubric(judge.default_rubric)
    base = ScorerContext(
        scoring=scoring,
        model=model,
        rubric=rubric.data if rubric else None,
        rubric_hash=rubric.hash if rubric else None,
        temperature=temperature,
        seed=seed,
    )
    questions = scoring.benchmark.questions
    if is_insightbench(questions):
        pairs = insightbench_pairs(questions, getattr(judge, "applies", lambda q: True), count, seed)
        if not pairs:
            raise UsageError("no InsightBench insight question that this judge applies to")
    else:
        env = AgentEnv(benchmark=scoring.benchmark, databases=scoring.databases)
        pairs = build_pairs(questions, judge, env, count, seed)  # type: ignore[arg-type]
    setting = _Setting(judge, base, benchmark_name or scoring.benchmark.name, model.usage.snapshot() if model else None)
    if isinstance(judge, PairwiseJudge):
        return _check_pairwise(judge, setting, pairs, on_judged)
    return _check_scores(judge, setting, pairs, score, on_judged)


def _check_scores(
    judge: JudgeScorer,
    setting: _Setting,
    pairs: list[Pair],
    score: str | None,
    on_judged: Callable[[int, int], None] | None,
) -> CheckReport:
    """Each good answer judged twice (another seed the second time) and each degraded copy once."""
    base = setting.base
    goods = {p.question.id: p for p in pairs}
    total = len(pairs) + 2 * len(goods)
    done = 0

    def judged(question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        nonlocal done
        result = _safe_judge(judge, question, answer, context)
        done += 1
        if on_judged is not None:
            on_judged(done, total)
        return result

    first: dict[str, Judgement] = {}
    again: dict[str, Judgement] = {}
    for qid, pair in goods.items():
        first[qid] = judged(pair.question, pair.good, base)
        again[qid] = judged(pair.question, pair.good, replace(base, seed=base.seed + CONSISTENCY_SEED))
    results: list[PairResult] = []
    for index, pair in enumerate(pairs):
        good = first[pair.question.id]
        worse = judged(pair.question, pair.degraded, base)
        name = _score_name(judge, good, score) or _score_name(judge, worse, score)
        good_value = good.scores.get(name) if name and not good.failed else None
        worse_value = worse.scores.get(name) if name and not worse.failed else None
        verdict = outcome(good_value, worse_value)
        failure = good.failed or worse.failed
        results.append(_pair_result(pair, index, base.seed, name, good_value, worse_value, verdict, failure))
    return _report(
        setting,
        results,
        rubric_hash=base.rubric_hash,
        questions=len(goods),
        consistency=_consistency(judge, first, again, score),
        position_bias=None,
        judgements=done,
    )


def _consistency(
    judge: JudgeScorer, first: dict[str, Judgement], again: dict[str, Judgement], score: str | None
) -> Consistency:
    """How often each good answer's two judgements gave the same score."""
    same = failed = 0
    differences = []
    for qid in first:
        name = _score_name(judge, first[qid], score)
        a = first[qid].scores.get(name) if name and not first[qid].failed else None
        b = again[qid].scores.get(name) if name and not again[qid].failed else None
        if a is None or b is None:
            failed += 1
            continue
        same += a == b
        differences.append(abs(a - b))
    return Consistency(
        answers=len(first),
        same=same,
        failed=failed,
        agreement=wilson(same, len(differences)),
        mean_abs_difference=sum(differences) / len(differences) if differences else None,
    )


def _check_pairwise(
    judge: PairwiseJudge, setting: _Setting, pairs: list[Pair], on_judged: Callable[[int, int], None] | None
) -> CheckReport:
    """Each pair compared in both orders: agreement with the known order, ties, and position bias."""
    base = setting.base
    results: list[PairResult] = []
    flips = decided = 0
    for index, pair in enumerate(pairs):
        verdict = judge.compare(pair.question, pair.good, pair.degraded, base)
        if on_judged is not None:
            on_judged(index + 1, len(pairs))
        won = {"a": "higher", "b": "lower", "tie": "tie"}.get(verdict.winner or "", "failed")
        if verdict.winner is not None:
            decided += 1
            flips += verdict.flipped
        value = {"higher": 1.0, "lower": 0.0, "tie": 0.5}.get(won)
        worse = None if value is None else 1.0 - value
        results.append(_pair_result(pair, index, base.seed, "verdict", value, worse, won, verdict.failed))
    return _report(
        setting,
        results,
        rubric_hash=None,
        questions=len({p.question.id for p in pairs}),
        consistency=Consistency(0, 0, 0, wilson(0, 0), None),
        position_bias=wilson(flips, decided),
        judgements=2 * len(pairs),
    )
