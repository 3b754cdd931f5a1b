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
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy.stats import binomtest

from biarena.agents import AgentEnv
from biarena.errors import UsageError
from biarena.judges.analyst import draft_answer, gather, reference_parts
from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext
from biarena.judges.baselines import BASELINES
from biarena.judges.degrade import DEGRADATIONS, cause_of, degrade, other_cause
from biarena.judges.insight_truth import target_words
from biarena.judges.insightbench_pairs import insightbench_pairs, is_insightbench
from biarena.judges.pairwise import PairwiseJudge
from biarena.judges.rubric import LoadedRubric, load_builtin_rubric
from biarena.llm import Model, ModelError
from biarena.records import Answer, Question, Step, SystemSpec
from biarena.scoring.scoring_context import ScoringContext
from biarena.stats.bootstrap import paired_bootstrap

TYPES = ("corgi:type2", "corgi:type3", "corgi:type4")
"""Question types whose references carry a simulator-known truth."""
PER_QUESTION = 2
"""Degraded copies made of each good answer (so each pair stays informative and good answers are reused)."""
CONSISTENCY_SEED = 1000
"""Offset of the seed of a good answer's second judgement."""
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Pair:
    """A good answer and one degraded copy of it, to one question."""

    question: Question
    degradation: str
    good: Answer
    degraded: Answer


@dataclass
class PairResult:
    """How the judge scored one pair."""

    question_id: str
    question_type: str
    degradation: str
    score: str | None
    """The score compared."""
    good: float | None
    degraded: float | None
    outcome: str
    """`higher` (the good answer scored higher), `tie`, `lower`, or `failed` (a judgement could not be made)."""
    failure: str | None = None
    baselines: dict[str, str] = field(default_factory=dict)
    """Each trivial rule's outcome on the pair, in the same terms (`higher`: it preferred the good answer)."""
    question: str = ""
    reference: str = ""
    good_text: str = ""
    degraded_text: str = ""
    plan: str = ""
    good_steps: list[dict[str, Any]] = field(default_factory=list)
    """The good answer's SQL steps with their results (sql, columns, preview, row_count, error)."""
    degraded_steps: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Rate:
    """A share with its 95% Wilson interval."""

    successes: int
    trials: int
    rate: float | None
    low: float | None
    high: float | None


@dataclass
class Margin:
    """The judge's share of pairs won minus the best trivial rule's, on the pairs the judge decided, with a 95%
    paired bootstrap interval (pairs resampled with replacement)."""

    baseline: str | None
    """The trivial rule that won most pairs."""
    value: float | None
    low: float | None
    high: float | None
    pairs: int


@dataclass
class DegradationFigures:
    """How often the good answer beat one kind of degraded copy."""

    degradation: str
    pairs: int
    higher: int
    ties: int
    lower: int
    failed: int
    good_higher: Rate
    """Pairs the good answer won, over the pairs judged (failed ones left out)."""
    baselines: dict[str, Rate] = field(default_factory=dict)
    """Pairs each trivial rule gave the good answer, over all pairs (ties are not wins)."""
    margin: Margin | None = None


@dataclass
class Consistency:
    """The same good answer judged twice (another seed, the judge's temperature)."""

    answers: int
    same: int
    failed: int
    agreement: Rate
    mean_abs_difference: float | None


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


def wilson(successes: int, trials: int) -> Rate:
    """A share with its 95% Wilson score interval (scipy); no rate without trials."""
    if trials == 0:
        return Rate(successes, trials, None, None, None)
    interval = binomtest(successes, trials).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return Rate(successes, trials, successes / trials, float(interval.low), float(interval.high))


def corgi_type_label(question: Question) -> str:
    """The corgi type label of a question (an InsightBench question's insight type)."""
    found = next((label for label in question.labels if label in TYPES), None)
    return found or next((label for label in question.labels if label.startswith("insightbench:")), "other")


def candidates(questions: list[Question], judge: JudgeScorer) -> list[Question]:
    """Questions with a simulator-known truth that the judge applies to."""
    return [
        q
        for q in questions
        if q.reference_answer
        and corgi_type_label(q) != "other"
        and reference_parts(q.reference_answer)[0]
        and judge.applies(q)
    ]


def _answer(question: Question, text: str, plan: str, steps: list[Step]) -> Answer:
    return Answer(
        question_id=question.id,
        system=SystemSpec(agent="judge-check"),
        plan=plan,
        steps=steps,
        final_sql=steps[-1].sql if steps else None,
        text=text,
    )


def build_pairs(questions: list[Question], judge: JudgeScorer, env: AgentEnv, count: int, seed: int) -> list[Pair]:
    """`count` pairs over the question types in turn, each good answer with up to two kinds of degraded copy,
    spreading the pairs evenly over the degradations."""
    pool = candidates(questions, judge)
    if not pool:
        raise UsageError(
            "no question with a simulator-known truth that this judge applies to (corgi-synth types 2-4 have them)"
        )
    rng = random.Random(seed)
    by_type: dict[str, list[Question]] = {}
    for q in pool:
        by_type.setdefault(corgi_type_label(q), []).append(q)
    for items in by_type.values():
        rng.shuffle(items)
    order: list[Question] = []
    while any(by_type.values()):
        for kind in TYPES:
            if by_type.get(kind):
                order.append(by_type[kind].pop())
    causes: dict[str, list[str]] = {}
    for q in pool:
        cause = cause_of(reference_parts(q.reference_answer or "")[0])
        if cause:
            causes.setdefault(q.database, []).append(cause)
    made: dict[str, int] = dict.fromkeys(DEGRADATIONS, 0)
    pairs: list[Pair] = []
    for question in order:
        if len(pairs) >= count:
            break
        evidence = gather(question, env)
        if evidence is None:
            continue
        claim = reference_parts(question.reference_answer or "")[0]
        other = other_cause(claim, causes.get(question.database, []), random.Random(f"{seed}/{question.id}/cause"))
        target = target_words(question) if corgi_type_label(question) == "corgi:type4" else None
        draft = draft_answer(question, evidence, cause=cause_of(claim), other_cause=other, target=target)
        copies: list[tuple[str, str, list[Step]]] = []
        for name in sorted(DEGRADATIONS, key=lambda d: (made[d], DEGRADATIONS.index(d))):
            worse = degrade(
                name,
                draft,
                evidence,
                random.Random(f"{seed}/{question.id}/{name}"),
                recommendational=corgi_type_label(question) == "corgi:type4",
                wrong=lambda q=question: gather(q, env, year=True),
                target=target,
            )
            if worse is not None:
                copies.append((name, *worse))
            if len(copies) == min(PER_QUESTION, count - len(pairs)):
                break
        if not copies:
            continue
        good = _answer(question, draft.text, draft.plan, evidence.steps)
        for name, text, steps in copies:
            made[name] += 1
            pairs.append(Pair(question, name, good, _answer(question, text, draft.plan, steps)))
    return pairs


def _score_name(judge: JudgeScorer, judgement: Judgement, wanted: str | None) -> str | None:
    if wanted is not None:
        return wanted
    return next((name for name in judge.produces if judgement.scores.get(name) is not None), None)


def _outcome(good: float | None, worse: float | None) -> str:
    if good is None or worse is None:
        return "failed"
    return "higher" if good > worse else ("tie" if good == worse else "lower")


def margin(results: list[PairResult], seed: int = 0) -> Margin:
    """The judge's win share minus the best trivial rule's on the pairs it decided, with a paired bootstrap
    interval."""
    rules = list(dict.fromkeys(name for r in results for name in r.baselines))
    if not rules:
        return Margin(None, None, None, None, 0)
    best = max(rules, key=lambda name: sum(r.baselines.get(name) == "higher" for r in results))
    judged = [r for r in results if r.outcome != "failed"]
    if not judged:
        return Margin(best, None, None, None, 0)
    mine = [float(r.outcome == "higher") for r in judged]
    theirs = [float(r.baselines.get(best) == "higher") for r in judged]
    if len(judged) < 2:
        value = mine[0] - theirs[0]
        return Margin(best, value, None, None, 1)
    found = paired_bootstrap(mine, theirs, resamples=2000, seed=seed)
    return Margin(best, found.difference, found.low, found.high, found.n)


def _degradations(results: list[PairResult]) -> list[str]:
    """The degradations the pairs have, corgi-synth's in their order, then others (InsightBench's) as they come."""
    names = dict.fromkeys(r.degradation for r in results)
    return sorted(names, key=lambda n: DEGRADATIONS.index(n) if n in DEGRADATIONS else len(DEGRADATIONS))


def _figures(name: str, results: list[PairResult]) -> DegradationFigures:
    count = {k: sum(r.outcome == k for r in results) for k in ("higher", "tie", "lower", "failed")}
    judged = count["higher"] + count["tie"] + count["lower"]
    rules = list(dict.fromkeys(rule for r in results for rule in r.baselines))
    return DegradationFigures(
        degradation=name,
        pairs=len(results),
        higher=count["higher"],
        ties=count["tie"],
        lower=count["lower"],
        failed=count["failed"],
        good_higher=wilson(count["higher"], judged),
        baselines={
            rule: wilson(sum(r.baselines.get(rule) == "higher" for r in results), len(results)) for rule in rules
        },
        margin=margin(results),
    )


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


def _context_for(base: ScorerContext, seed: int) -> ScorerContext:
    return ScorerContext(
        scoring=base.scoring,
        model=base.model,
        rubric=base.rubric,
        rubric_hash=base.rubric_hash,
        temperature=base.temperature,
        seed=seed,
    )


def _safe_judge(judge: JudgeScorer, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
    """A judgement; a judge that breaks its promise and raises for a model failure is recorded as failed."""
    try:
        return judge.judge(question, answer, context)
    except (JudgeReplyError, ModelError) as error:
        return Judgement(scores=dict.fromkeys(judge.produces), failed=str(error))


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
    env = AgentEnv(benchmark=scoring.benchmark, databases=scoring.databases)
    questions = scoring.benchmark.questions
    if is_insightbench(questions):
        pairs = insightbench_pairs(questions, getattr(judge, "applies", lambda q: True), count, seed)
        if not pairs:
            raise UsageError("no InsightBench insight question that this judge applies to")
    else:
        pairs = build_pairs(questions, judge, env, count, seed)  # type: ignore[arg-type]
    if isinstance(judge, PairwiseJudge):
        return _check_pairwise(judge, base, pairs, benchmark_name or scoring.benchmark.name, on_judged)
    goods = {p.question.id: p for p in pairs}
    total = len(pairs) + 2 * len(goods)
    before = model.usage.snapshot() if model else None
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
        again[qid] = judged(pair.question, pair.good, _context_for(base, seed + CONSISTENCY_SEED))
    results: list[PairResult] = []
    for index, pair in enumerate(pairs):
        good = first[pair.question.id]
        worse = judged(pair.question, pair.degraded, base)
        name = _score_name(judge, good, score) or _score_name(judge, worse, score)
        good_value = good.scores.get(name) if name and not good.failed else None
        worse_value = worse.scores.get(name) if name and not worse.failed else None
        results.append(
            PairResult(
                question_id=pair.question.id,
                question_type=corgi_type_label(pair.question),
                degradation=pair.degradation,
                score=name,
                good=good_value,
                degraded=worse_value,
                outcome=_outcome(good_value, worse_value),
                failure=good.failed or worse.failed,
                baselines=_baselines(pair, seed, index),
                **_texts(pair),
            )
        )
    same = failed = 0
    differences = []
    for qid in goods:
        name = _score_name(judge, first[qid], score)
        a = first[qid].scores.get(name) if name and not first[qid].failed else None
        b = again[qid].scores.get(name) if name and not again[qid].failed else None
        if a is None or b is None:
            failed += 1
            continue
        same += a == b
        differences.append(abs(a - b))
    consistency = Consistency(
        answers=len(goods),
        same=same,
        failed=failed,
        agreement=wilson(same, len(differences)),
        mean_abs_difference=sum(differences) / len(differences) if differences else None,
    )
    after = model.usage.snapshot() if model else None
    return CheckReport(
        judge=judge.name,
        judge_version=judge.version,
        model=model.spec if model else None,
        benchmark=benchmark_name or scoring.benchmark.name,
        seed=seed,
        temperature=temperature,
        rubric_hash=rubric.hash if rubric else None,
        questions=len(goods),
        degradations=[_figures(name, [r for r in results if r.degradation == name]) for name in _degradations(results)],
        overall=_figures("all", results),
        consistency=consistency,
        margin=margin(results, seed),
        position_bias=None,
        judgements=done,
        model_calls=after.calls - before.calls if after and before else 0,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens if after and before else 0,
        completion_tokens=after.completion_tokens - before.completion_tokens if after and before else 0,
        pairs=results,
    )


def _check_pairwise(
    judge: PairwiseJudge,
    base: ScorerContext,
    pairs: list[Pair],
    benchmark: str,
    on_judged: Callable[[int, int], None] | None,
) -> CheckReport:
    """Each pair compared in both orders: agreement with the known order, ties, and position bias."""
    model = base.model
    before = model.usage.snapshot() if model else None
    results: list[PairResult] = []
    flips = decided = 0
    for index, pair in enumerate(pairs):
        verdict = judge.compare(pair.question, pair.good, pair.degraded, base)
        if on_judged is not None:
            on_judged(index + 1, len(pairs))
        outcome = {"a": "higher", "b": "lower", "tie": "tie"}.get(verdict.winner or "", "failed")
        if verdict.winner is not None:
            decided += 1
            flips += verdict.flipped
        value = {"higher": 1.0, "lower": 0.0, "tie": 0.5}.get(outcome)
        results.append(
            PairResult(
                question_id=pair.question.id,
                question_type=corgi_type_label(pair.question),
                degradation=pair.degradation,
                score="verdict",
                good=value,
                degraded=None if value is None else 1.0 - value,
                outcome=outcome,
                failure=verdict.failed,
                baselines=_baselines(pair, base.seed, index),
                **_texts(pair),
            )
        )
    after = model.usage.snapshot() if model else None
    return CheckReport(
        judge=judge.name,
        judge_version=judge.version,
        model=model.spec if model else None,
        benchmark=benchmark,
        seed=base.seed,
        temperature=base.temperature,
        rubric_hash=None,
        questions=len({p.question.id for p in pairs}),
        degradations=[_figures(name, [r for r in results if r.degradation == name]) for name in _degradations(results)],
        overall=_figures("all", results),
        consistency=Consistency(0, 0, 0, wilson(0, 0), None),
        margin=margin(results, base.seed),
        position_bias=wilson(flips, decided),
        judgements=2 * len(pairs),
        model_calls=after.calls - before.calls if after and before else 0,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens if after and before else 0,
        completion_tokens=after.completion_tokens - before.completion_tokens if after and before else 0,
        pairs=results,
    )
