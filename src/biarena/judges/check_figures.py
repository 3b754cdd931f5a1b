"""What a judge check measures of the pairs it judged: how often the good answer scored higher (a 95% Wilson
interval), per degradation and overall, and the judge's margin over the best trivial rule (a paired bootstrap)."""

from dataclasses import dataclass, field
from typing import Any

from scipy.stats import binomtest

from biarena.judges.degrade import DEGRADATIONS
from biarena.stats.bootstrap import paired_bootstrap

CONFIDENCE = 0.95


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


def wilson(successes: int, trials: int) -> Rate:
    """A share with its 95% Wilson score interval (scipy); no rate without trials."""
    if trials == 0:
        return Rate(successes, trials, None, None, None)
    interval = binomtest(successes, trials).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return Rate(successes, trials, successes / trials, float(interval.low), float(interval.high))


def outcome(good: float | None, worse: float | None) -> str:
    """`higher`, `tie` or `lower` for the good answer's score against the worse one's; `failed` without both."""
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


def degradations(results: list[PairResult]) -> list[str]:
    """The degradations the pairs have, corgi-synth's in their order, then others (InsightBench's) as they come."""
    names = dict.fromkeys(r.degradation for r in results)
    return sorted(names, key=lambda n: DEGRADATIONS.index(n) if n in DEGRADATIONS else len(DEGRADATIONS))


def figures(name: str, results: list[PairResult]) -> DegradationFigures:
    """The figures of the pairs `results` under the name `name` (a degradation, or `all`)."""
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
