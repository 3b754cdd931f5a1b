"""BIS result partial similarity: columns matched by values, one to one, into precision/recall/F1."""

import gc
from dataclasses import dataclass

import numpy as np

from biarena.db.result import QueryResult
from biarena.metrics.columns import Column, Tolerance, columns_equal, may_match
from biarena.metrics.typed_columns import typed_columns


@dataclass(frozen=True)
class ResultSimilarity:
    """Precision, recall and F1 of matched columns, with the matching itself."""

    precision: float
    recall: float
    f1: float
    matched: list[tuple[int, int]]
    """(predicted column, gold column) pairs."""
    compared: int
    """Column pairs compared in full (after fingerprinting)."""


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def to_columns(result: QueryResult) -> list[Column]:
    """Split a result into typed columns."""
    if not result.rows:
        return [Column.of([]) for _ in result.columns]
    # Transposing makes one iterator per row; with a million rows the cyclic garbage collector
    # would otherwise walk every live object many times over. Nothing here can form a cycle.
    paused = gc.isenabled()
    gc.disable()
    try:
        return typed_columns(result.rows, len(result.rows[0]))
    finally:
        if paused:
            gc.enable()


def max_matching(edges: list[tuple[int, int]], rows: int, cols: int) -> list[tuple[int, int]]:
    """A maximum one-to-one matching of a bipartite graph given by (row, col) edges."""
    if not edges:
        return []
    data = np.ones(len(edges), dtype=np.int8)
    from scipy.sparse import csr_matrix  # scipy loads only when columns are matched (not for `show`)
    from scipy.sparse.csgraph import maximum_bipartite_matching

    graph = csr_matrix((data, ([e[0] for e in edges], [e[1] for e in edges])), shape=(rows, cols))
    match = maximum_bipartite_matching(graph, perm_type="column")
    return [(r, int(c)) for r, c in enumerate(match) if c >= 0]


def _by_header(predicted: QueryResult, gold: QueryResult) -> list[tuple[int, int]]:
    names = {name.lower(): j for j, name in enumerate(gold.columns)}
    edges = [(i, names[n.lower()]) for i, n in enumerate(predicted.columns) if n.lower() in names]
    return max_matching(edges, len(predicted.columns), len(gold.columns))


def result_similarity(
    predicted: QueryResult,
    gold: QueryResult,
    *,
    ordered: bool = False,
    tolerance: Tolerance | None = None,
    predicted_columns: list[Column] | None = None,
    gold_columns: list[Column] | None = None,
) -> ResultSimilarity:
    """Score `predicted` against `gold` by BIS 5.2 (with the errata's recall |A n B| / |B|)."""
    tolerance = tolerance or Tolerance()
    n_pred, n_gold = len(predicted.columns), len(gold.columns)
    if n_pred == 0 or n_gold == 0:
        return ResultSimilarity(0.0, 0.0, 0.0, [], 0)
    compared = 0
    if not gold.rows:
        # An empty gold result has nothing to match by value: compare the headers.
        matched = _by_header(predicted, gold) if not predicted.rows else []
    else:
        pred_cols = predicted_columns if predicted_columns is not None else to_columns(predicted)
        gold_cols = gold_columns if gold_columns is not None else to_columns(gold)
        edges = []
        for i, a in enumerate(pred_cols):
            for j, b in enumerate(gold_cols):
                if may_match(a, b, ordered, tolerance):
                    compared += 1
                    if columns_equal(a, b, ordered, tolerance):
                        edges.append((i, j))
        matched = max_matching(edges, n_pred, n_gold)
    precision = len(matched) / n_pred
    recall = len(matched) / n_gold
    return ResultSimilarity(precision, recall, _f1(precision, recall), matched, compared)
