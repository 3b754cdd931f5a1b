"""Deterministic metrics: execution, SER, execution accuracy, BIS semantic and result similarity.

Each name is imported from its module when first used: a summary of stored scores loads no comparison code.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "ScoringBudget": "context",
    "Tolerance": "columns",
    "ScoringContext": "context",
    "results_match": "execution_match",
    "ResultSimilarity": "result_similarity",
    "result_similarity": "result_similarity",
    "MetricScorer": "scorer",
    "SemanticSimilarity": "semantic_similarity",
    "semantic_similarity": "semantic_similarity",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
