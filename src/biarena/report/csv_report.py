"""csv_report: the report's figures as one long CSV: a row per table, run or system, group and score."""

import csv
import io

from biarena.report.analysis import Analysis

FIELDS = ["table", "run", "group", "score", "mean", "low", "high", "n", "questions"]
"""Columns: which table, run (or system, or judge), group (or check), score, estimate, interval, count behind it."""


def csv_report(analysis: Analysis) -> str:
    """Every mean with its interval (by category, type, language, overall), the arena strengths and the judge check."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(FIELDS)

    def put(*cells: object) -> None:
        writer.writerow(["" if c is None or c != c else c for c in cells])

    for section in analysis.sections:
        for label, rows in section.runs:
            for row in rows:
                for name in analysis.names:
                    iv = row.scores.get(name)
                    if iv is not None:
                        put(section.key, label, row.group, name, iv.estimate, iv.low, iv.high, iv.n, row.questions)
    if analysis.arena is not None:
        for row in analysis.arena.rows:
            put("arena", row.name, "", "bradley_terry", row.strength, row.low, row.high, row.votes, None)
    for judge, figures in analysis.judge_check.items():
        for figure in figures:
            put("judge_check", judge, figure.check, "good_higher", figure.rate, figure.low, figure.high, figure.n, None)
    for judge, values in analysis.dimensions.items():
        for label, means in values.items():
            for dimension, mean in means.items():
                put("judge_dimensions", label, judge, dimension, mean, None, None, None, None)
    return buffer.getvalue()
