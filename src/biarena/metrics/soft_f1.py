"""soft_f1: BIRD's Soft-F1 of a predicted result against a gold one, a value in [0, 1]."""

from collections.abc import Sequence
from typing import Any


def _row_parts(pred: Sequence[Any], gold: Sequence[Any]) -> tuple[float, float, float]:
    """(matched, predicted-only, gold-only) values of one row pair, each as a share of the gold row's width."""
    width = len(gold)
    matched = sum(1 for value in pred if value in gold)
    pred_only = len(pred) - matched
    gold_only = sum(1 for value in gold if value not in pred)
    return matched / width, pred_only / width, gold_only / width


def soft_f1(predicted: Sequence[tuple], gold: Sequence[tuple]) -> float:
    """Duplicate rows dropped (first kept), the i-th predicted row scored against the i-th gold row; unpaired rows
    count wholly against; F1 of the summed matched, predicted-only and gold-only shares. Two empty results: 1."""
    if not predicted and not gold:
        return 1.0
    pred_rows = list(dict.fromkeys(predicted))
    gold_rows = list(dict.fromkeys(gold))
    tp = fp = fn = 0.0
    for index, gold_row in enumerate(gold_rows):
        if index >= len(pred_rows):
            fn += 1
            continue
        matched, pred_only, gold_only = _row_parts(pred_rows[index], gold_row)
        tp, fp, fn = tp + matched, fp + pred_only, fn + gold_only
    fp += max(0, len(pred_rows) - len(gold_rows))
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
