"""SCORERS: the deterministic metrics by name."""

from collections.abc import Callable

from biarena.metrics.execution import ExecutionScorer
from biarena.metrics.execution_accuracy import ExecutionAccuracyScorer
from biarena.metrics.result import ResultSimilarityScorer
from biarena.metrics.scorer import Scorer
from biarena.metrics.semantic import SemanticSimilarityScorer

SCORERS: dict[str, Callable[[], Scorer]] = {
    "execution": ExecutionScorer,
    "execution_accuracy": ExecutionAccuracyScorer,
    "semantic_similarity": SemanticSimilarityScorer,
    "result_similarity": ResultSimilarityScorer,
}
"""Scorers by name; each produces the score names in its `produces`."""
