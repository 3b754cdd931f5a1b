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
        styled = analysis.arena.style_control
        for name in styled.systems if styled is not None else []:
            put("arena_style_controlled", name, "", "bradley_terry", styled.strength[name], styled.low[name],
                styled.high[name], None, None)  # fmt: skip
    for j in analysis.judge_votes:
        for row in j.board.rows:
            put("pairwise_judge", row.name, j.judge, "bradley_terry", row.strength, row.low, row.high, row.votes, None)
        found = j.agreement
        if found is not None:
            put("judge_human_agreement", j.judge, j.source, "cohens_kappa", found.kappa, found.low, found.high,
                found.n, None)  # fmt: skip
    for judge, figures in analysis.judge_check.items():
        for figure in figures:
            put("judge_check", judge, figure.check, "good_higher", figure.rate, figure.low, figure.high, figure.n, None)
    for judge, values in analysis.dimensions.items():
        for label, means in values.items():
            for dimension, mean in means.items():
                put("judge_dimensions", label, judge, dimension, mean, None, None, None, None)
    return buffer.getvalue()
