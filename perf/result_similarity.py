"""Result similarity on a 1,000,000-row x 40-column pair: biarena vs an all-pairs column comparison.

Prints both times, the speed ratio, whether precision, recall and F1 agree, and the process's peak memory.
Run: python perf/result_similarity.py [--rows N] [--columns N]
"""

import argparse
import resource
import time

import numpy as np

from biarena.db import QueryResult
from biarena.metrics import Tolerance, result_similarity
from biarena.metrics.columns import Column, columns_equal
from biarena.metrics.result_similarity import max_matching


def make_pair(rows: int, columns: int, seed: int = 1) -> tuple[QueryResult, QueryResult]:
    """A gold result and a prediction that keeps 30 of its columns (shuffled), rounds some and adds 10 others."""
    rng = np.random.default_rng(seed)
    gold_cols: list[list] = []
    for j in range(columns):
        if j % 4 == 0:
            gold_cols.append(rng.integers(0, 1000, rows).tolist())
        elif j % 4 == 1:
            gold_cols.append(rng.normal(100, 15, rows).tolist())
        elif j % 4 == 2:
            gold_cols.append((rng.integers(0, 5000, rows) / 100).tolist())
        else:
            gold_cols.append([f"k{v}" for v in rng.integers(0, 50, rows)])
    kept = [list(gold_cols[j]) for j in range(30)]
    for j in range(1, 30, 8):  # a few kept float columns come back rounded to 2 places
        kept[j] = np.round(np.asarray(kept[j]), 2).tolist()
    extra = [rng.normal(0, 1, rows).tolist() for _ in range(columns - 30)]
    pred_cols = kept + extra
    order = rng.permutation(len(pred_cols))
    pred_cols = [pred_cols[i] for i in order]
    perm = rng.permutation(rows)  # rows come back in another order
    pred_cols = [[col[i] for i in perm] for col in pred_cols]
    to_rows = lambda cols: list(zip(*cols, strict=True))  # noqa: E731
    return (
        QueryResult([f"p{i}" for i in range(len(pred_cols))], to_rows(pred_cols)),
        QueryResult([f"g{j}" for j in range(columns)], to_rows(gold_cols)),
    )


def all_pairs(pred: QueryResult, gold: QueryResult) -> tuple[float, float, float]:
    """The paper's method: compare every (predicted, gold) column pair in full, then match one to one.

    As in BIS's reference implementation, each pair's two columns are taken out of the results and
    converted inside the double loop; the equality rule is biarena's, so the scores must agree.
    """
    tolerance = Tolerance()
    edges = []
    for i in range(len(pred.columns)):
        for j in range(len(gold.columns)):
            a = Column.of([row[i] for row in pred.rows])
            b = Column.of([row[j] for row in gold.rows])
            if columns_equal(a, b, False, tolerance):
                edges.append((i, j))
    matched = len(max_matching(edges, len(pred.columns), len(gold.columns)))
    precision, recall = matched / len(pred.columns), matched / len(gold.columns)
    f1 = 0.0 if not matched else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def main() -> None:
    """Run both methods on the same pair and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, default=40)
    args = parser.parse_args()
    # Both methods end in the same matching (scipy); load it first, as a run scoring many answers has it loaded.
    tiny_pred, tiny_gold = make_pair(10, args.columns)
    result_similarity(tiny_pred, tiny_gold)
    print(f"building a {args.rows:,} x {args.columns} result pair ...", flush=True)
    pred, gold = make_pair(args.rows, args.columns)

    started = time.perf_counter()
    fast = result_similarity(pred, gold)
    biarena_seconds = time.perf_counter() - started
    print(
        f"biarena (fingerprint, then compare candidates): {biarena_seconds:8.2f} s "
        f"({fast.compared} of {len(pred.columns) * len(gold.columns)} pairs compared in full)",
        flush=True,
    )
    print(f"peak RSS after biarena: {_peak_rss_mb():,.0f} MB", flush=True)

    started = time.perf_counter()
    slow = all_pairs(pred, gold)
    baseline_seconds = time.perf_counter() - started
    print(f"all-pairs comparison:                           {baseline_seconds:8.2f} s", flush=True)

    print(f"speed ratio: {baseline_seconds / biarena_seconds:.1f}x (target >= 50x)")
    same = np.allclose([fast.precision, fast.recall, fast.f1], list(slow))
    print(
        f"biarena P/R/F1 = {fast.precision:.4f} / {fast.recall:.4f} / {fast.f1:.4f}; "
        f"all-pairs = {slow[0]:.4f} / {slow[1]:.4f} / {slow[2]:.4f}; identical: {same}"
    )


if __name__ == "__main__":
    main()
