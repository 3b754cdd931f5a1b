"""Deterministic metrics: execution, SER, execution accuracy, BIS semantic and result similarity."""

from collections.abc import Callable

from biarena.metrics.budget import ScoringBudget
from biarena.metrics.columns import Tolerance
from biarena.metrics.context import ScoringContext
from biarena.metrics.execution import ExecutionScorer
from biarena.metrics.execution_accuracy import ExecutionAccuracyScorer
from biarena.metrics.execution_match import results_match
from biarena.metrics.result import ResultSimilarityScorer
from biarena.metrics.result_similarity import ResultSimilarity, result_similarity
from biarena.metrics.scorer import Scorer
from biarena.metrics.semantic import SemanticSimilarityScorer
from biarena.metrics.semantic_similarity import SemanticSimilarity, semantic_similarity

SCORERS: dict[str, Callable[[], Scorer]] = {
    "execution": ExecutionScorer,
    "execution_accuracy": ExecutionAccuracyScorer,
    "semantic_similarity": SemanticSimilarityScorer,
    "result_similarity": ResultSimilarityScorer,
}
"""Scorers by name; each produces the score names in its `produces`."""

SCORE_NAMES: tuple[str, ...] = tuple(n for factory in SCORERS.values() for n in factory.produces)  # type: ignore[attr-defined]

__all__ = [
    "SCORERS",
    "SCORE_NAMES",
    "ResultSimilarity",
    "Scorer",
    "ScoringBudget",
    "ScoringContext",
    "SemanticSimilarity",
    "Tolerance",
    "result_similarity",
    "results_match",
    "semantic_similarity",
]
