"""SCORERS: every scorer by name (metrics, judges, interaction, plugins'), each class imported when first used."""

from collections.abc import Callable

from biarena.registry import Registry, UnknownNameError
from biarena.scoring.scorer import Scorer


def lazy(target: str, *, default: bool = False) -> tuple[str, dict[str, bool]]:
    """A SCORERS entry: the scorer class at `module:Class`, imported when first used; `default`: `biarena score`
    runs it when no scorer is named."""
    return (target, {"default": True} if default else {})


SCORERS: Registry[type[Scorer]] = Registry(
    "scorer",
    {
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
        "insight_rouge": lazy("biarena.judges.insight_rouge:InsightRougeScorer"),
        "insight_values": lazy("biarena.judges.insight_values:InsightValuesJudge"),
        "insight_match": lazy("biarena.judges.insight_match:InsightMatchJudge"),
    },
    group="biarena.scorers",
)
"""Registry name -> the scorer class (called with its keyword options), imported on first use; plugins add theirs
through the `biarena.scorers` entry points. A new scorer is one file and one line here; the deterministic metrics
are the default ones."""


def variant_factory(name: str) -> Callable[..., Scorer] | None:
    """The factory of a variant name `BASE[VALUE]`: the registered scorer BASE made with its variant option (the
    one its class names as `variant_option`) set to VALUE, e.g. `execution_accuracy[bird]`; None for other names."""
    base, bracket, rest = name.partition("[")
    if not bracket or not rest.endswith("]") or name in SCORERS.builtin_names() or base not in SCORERS:
        return None
    factory = SCORERS[base]
    option = getattr(factory, "variant_option", None)
    if option is None:
        return None

    def make(**options: object) -> Scorer:
        return factory(**{option: rest[:-1], **options})

    return make


def default_scorers() -> list[str]:
    """The scorers `biarena score` runs when none is named: the deterministic metrics."""
    return [name for name in SCORERS.builtin_names() if SCORERS.meta(name, "default", False)]


def get_scorer(name: str, noun: str = "scorer", **options: object) -> Scorer:
    """The scorer registered as `name`, made with `options`; a one-line error (calling it a `noun`) when unknown."""
    variant = variant_factory(name)
    if variant is not None:
        return variant(**options)
    try:
        factory = SCORERS[name]
    except UnknownNameError as error:
        raise UnknownNameError(str(error).replace("unknown scorer", f"unknown {noun}", 1)) from None
    return factory(**options)
