"""SCORERS: every scorer by name (metrics, judges, interaction), each made by a factory that imports it when called."""

from collections.abc import Callable
from importlib import import_module

from biarena.errors import NotFoundError, did_you_mean
from biarena.scoring.scorer import Scorer


def lazy(target: str, *, default: bool = False) -> Callable[..., Scorer]:
    """A factory of the class at `module:Class`, imported when the first scorer is made (so the registry is cheap);
    `default`: `biarena score` runs it when no scorer is named."""
    module, _, name = target.partition(":")

    def make(**options: object) -> Scorer:
        return getattr(import_module(module), name)(**options)

    make.__qualname__ = make.__name__ = f"lazy({target})"
    make.scorer_class = lambda: getattr(import_module(module), name)  # type: ignore[attr-defined]
    make.default = default  # type: ignore[attr-defined]
    return make


SCORERS: dict[str, Callable[..., Scorer]] = {
    "execution": lazy("biarena.metrics.execution:ExecutionScorer", default=True),
    "execution_accuracy": lazy("biarena.metrics.execution_accuracy:ExecutionAccuracyScorer", default=True),
    "semantic_similarity": lazy("biarena.metrics.semantic:SemanticSimilarityScorer", default=True),
    "result_similarity": lazy("biarena.metrics.result:ResultSimilarityScorer", default=True),
    "test_suite_accuracy": lazy("biarena.metrics.test_suite_accuracy:TestSuiteAccuracyScorer"),
    "corgi": lazy("biarena.judges.corgi:CorgiJudge"),
    "corgi-single": lazy("biarena.judges.corgi_single:CorgiSingleJudge"),
    "reference": lazy("biarena.judges.reference:ReferenceJudge"),
    "peer-review": lazy("biarena.judges.peer_review:PeerReviewJudge"),
    "bibench": lazy("biarena.judges.bibench:BiBenchJudge"),
    "interaction": lazy("biarena.judges.interaction:InteractionJudge"),
    "faithfulness": lazy("biarena.judges.faithfulness:FaithfulnessJudge"),
    "insight": lazy("biarena.judges.insight:InsightJudge"),
}
"""Registry name -> factory taking the scorer's keyword options. A new scorer is one file and one line here; the
deterministic metrics are the default ones."""


def variant_factory(name: str) -> Callable[..., Scorer] | None:
    """The factory of a variant name `BASE[VALUE]`: the registered scorer BASE made with its variant option (the
    one its class names as `variant_option`) set to VALUE, e.g. `execution_accuracy[bird]`; None for other names."""
    base, bracket, rest = name.partition("[")
    if not bracket or not rest.endswith("]") or base not in SCORERS:
        return None
    factory = SCORERS[base]
    named = getattr(factory, "scorer_class", None)
    option = getattr(named() if callable(named) else factory, "variant_option", None)
    if option is None:
        return None

    def make(**options: object) -> Scorer:
        return factory(**{option: rest[:-1], **options})

    return make


def default_scorers() -> list[str]:
    """The scorers `biarena score` runs when none is named: the deterministic metrics."""
    return [name for name, factory in SCORERS.items() if getattr(factory, "default", False)]


def get_scorer(name: str, noun: str = "scorer", **options: object) -> Scorer:
    """The scorer registered as `name`, made with `options`; a one-line error (calling it a `noun`) when unknown."""
    variant = variant_factory(name) if name not in SCORERS else None
    if variant is not None:
        return variant(**options)
    if name not in SCORERS:
        known = list(SCORERS)
        raise NotFoundError(f"unknown {noun} '{name}'{did_you_mean(name, known)} (known: {', '.join(known)})")
    return SCORERS[name](**options)
