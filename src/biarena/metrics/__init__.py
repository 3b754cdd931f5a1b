"""Deterministic metrics: execution, SER, execution accuracy, BIS semantic and result similarity.

Each name is imported from its module when first used: a summary of stored scores loads no comparison code.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "context": ("ScoringBudget", "ScoringContext"),
    "columns": "Tolerance",
    "execution_match": "results_match",
    "result_similarity": ("ResultSimilarity", "result_similarity"),
    "scorer": "MetricScorer",
    "semantic_similarity": ("SemanticSimilarity", "semantic_similarity"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
