"""write_report: one self-contained HTML file comparing runs: tables, charts, and every question's answers."""

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from biarena import __version__
from biarena.files import write_atomically
from biarena.metrics.summary import SummaryRow
from biarena.records import Question
from biarena.report.comparison import RunSummary, compare
from biarena.report.run_data import RunData, label_runs
from biarena.report.svg_chart import PALETTE, grouped_bars

SCORE_COLUMNS = [
    ("ser", "SER"),
    ("execution_accuracy", "Exec. accuracy"),
    ("semantic_similarity", "SQL similarity"),
    ("result_f1", "Result F1"),
]

OUTCOME_TEXT = {
    "ran": "ran",
    "sql_failed": "SQL failed",
    "no_answer": "no answer",
    "unanswered": "not run",
    "not_asked": "not asked",
}
"""Outcome kinds as the report writes them (`not_asked`: the question is not in that run)."""


def _category(question_label: str) -> str:
    return question_label.split(":", 1)[-1].replace("_", " ")


def _run_row(summary: RunSummary, colour: str) -> dict[str, Any]:
    row = summary.overall
    return {
        "label": summary.run.label,
        "colour": colour,
        "spec": summary.run.spec,
        "overall": row,
        "outcomes": {k: row.outcomes.get(k, 0) for k in ("ran", "sql_failed", "no_answer", "unanswered")},
        "unscored": summary.unscored,
        "errors": summary.errors,
        "usage": summary.run.usage(),
    }


def _entry(run: RunData, index: int, question: Question, asked: set[str], table: dict) -> dict[str, Any]:
    answer = run.answer(question.id)
    outcome = run.outcome(question.id)
    kind = outcome.kind if question.id in asked else "not_asked"
    scores = table.get(question.id, {})
    tokens = [kind]
    accuracy = scores.get("execution_accuracy")
    if kind == "ran" and accuracy is not None:
        tokens.append("right" if accuracy == 1 else "wrong")
    return {
        "index": index,
        "label": run.label,
        "answer": answer,
        "kind": kind,
        "outcome": OUTCOME_TEXT[kind],
        "error": outcome.error,
        "scores": scores,
        "tokens": " ".join(tokens),
    }


def _drill(runs: list[RunData]) -> list[dict[str, Any]]:
    questions: dict[str, Question] = {}
    for run in runs:
        for question in run.questions:
            questions.setdefault(question.id, question)
    asked = [{q.id for q in run.questions} for run in runs]
    tables = [run.score_table() for run in runs]
    drill = []
    for question in questions.values():
        entries = [_entry(run, i, question, asked[i], tables[i]) for i, run in enumerate(runs)]
        drill.append(
            {
                "question": question,
                "category": question.labels[0] if question.labels else "",
                "entries": entries,
                "search": " ".join([question.id, question.text, *question.labels, question.language]).lower(),
            }
        )
    return drill


def build_context(runs: list[RunData], title: str) -> dict[str, Any]:
    """Everything the template shows, computed from the runs."""
    comparison = compare(runs)
    names = [n for n, _ in SCORE_COLUMNS]
    compared = comparison.summaries[0].questions if comparison.summaries else []
    categories = sorted({q.labels[0] for s in comparison.summaries for q in s.questions if q.labels})
    per_run = [_run_row(s, PALETTE[i % len(PALETTE)]) for i, s in enumerate(comparison.summaries)]
    by_category = []
    for summary in comparison.summaries:
        rows: dict[str, SummaryRow] = {row.group: row for row in summary.by_label}
        by_category.append({"label": summary.run.label, "rows": [(_category(c), rows.get(c)) for c in categories]})
    charts = []
    for name, header in (("ser", "SQL success execution rate (SER)"), ("result_f1", "Result F1")):
        series = {
            entry["label"]: [row.means.get(name) if row else None for _, row in entry["rows"]] for entry in by_category
        }
        charts.append(grouped_bars([_category(c) for c in categories], series, title=f"{header} by category"))
    return {
        "title": title,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
        "benchmark": runs[0].spec.benchmark_name if runs else "",
        "runs": per_run,
        "warnings": comparison.warnings,
        "compared": len(compared),
        "names": names,
        "columns": SCORE_COLUMNS,
        "with_cost": any(r["usage"].cost is not None for r in per_run),
        "not_run": any(r["outcomes"]["unanswered"] for r in per_run),
        "by_category": by_category,
        "categories": categories,
        "category_names": {c: _category(c) for c in categories},
        "charts": charts,
        "drill": _drill(runs),
        "outcome_text": OUTCOME_TEXT,
    }


def render_report(runs: list[RunData], *, title: str = "biarena report") -> str:
    """The report's HTML: styles, charts and the filter script inside, nothing fetched."""
    source = resources.files("biarena.report").joinpath("templates", "report.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = lambda v, d=3: "–" if v is None else f"{v:.{d}f}"
    return env.from_string(source).render(**build_context(runs, title))


def write_report(runs: list[RunData], path: Path, *, title: str = "biarena report") -> Path:
    """Write the report to `path` (one HTML file with its styles and charts inside), atomically."""
    labels = [run.label for run in runs]
    if len(set(labels)) != len(labels):
        label_runs(runs)
    html = render_report(runs, title=title)
    return write_atomically(path, lambda temp: temp.write_text(html, encoding="utf-8"))
