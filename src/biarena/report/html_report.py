"""write_report: one self-contained HTML file comparing runs: tables, charts, and every answer."""

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import jinja2

from biarena import __version__
from biarena.metrics.summary import overall, summarize
from biarena.report.run_data import RunData
from biarena.report.svg_chart import grouped_bars

SCORE_COLUMNS = [
    ("ser", "SER"),
    ("execution_accuracy", "Exec. accuracy"),
    ("semantic_similarity", "SQL similarity"),
    ("result_f1", "Result F1"),
]


def _category(question_label: str) -> str:
    return question_label.split(":", 1)[-1].replace("_", " ")


def build_context(runs: list[RunData], title: str) -> dict:
    """Everything the template shows, computed from the runs."""
    names = [n for n, _ in SCORE_COLUMNS]
    categories = sorted({q.labels[0] for r in runs for q in r.questions if q.labels})
    per_run = []
    for run in runs:
        answered = {a.question_id for a in run.answers}
        asked = [q for q in run.questions if q.id in answered]
        rows = {row.group: row for row in summarize(asked, run.scores, names)}
        usage = {
            k: sum(getattr(a.usage, k) for a in run.answers)
            for k in ("calls", "cache_hits", "prompt_tokens", "completion_tokens")
        }
        per_run.append(
            {
                "label": run.label,
                "spec": run.spec,
                "overall": overall(asked, run.scores, names),
                "by_category": [rows.get(c) for c in categories],
                "answered": len(run.answers),
                "errors": sum(1 for a in run.answers if a.status != "ok"),
                "usage": usage,
            }
        )
    charts = []
    for name, header in (("ser", "SQL success execution rate (SER)"), ("result_f1", "Result F1")):
        series = {r["label"]: [row.means.get(name) if row else None for row in r["by_category"]] for r in per_run}
        charts.append(grouped_bars([_category(c) for c in categories], series, title=f"{header} by category"))
    questions = {}
    for run in runs:
        for q in run.questions:
            questions.setdefault(q.id, q)
    drill = []
    tables = [r.score_table() for r in runs]
    answers = [{a.question_id: a for a in r.answers} for r in runs]
    for qid, question in questions.items():
        entries = [
            {"label": run.label, "answer": answers[i].get(qid), "scores": tables[i].get(qid, {})}
            for i, run in enumerate(runs)
        ]
        if any(e["answer"] for e in entries):
            drill.append({"question": question, "entries": entries})
    return {
        "title": title,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
        "benchmark": runs[0].spec.benchmark_name if runs else "",
        "runs": per_run,
        "categories": [_category(c) for c in categories],
        "columns": SCORE_COLUMNS,
        "charts": charts,
        "drill": drill,
    }


def write_report(runs: list[RunData], path: Path, *, title: str = "biarena report") -> Path:
    """Write the report to `path` (one HTML file with its styles and charts inside)."""
    source = resources.files("biarena.report").joinpath("templates", "report.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = lambda v, d=3: "–" if v is None else f"{v:.{d}f}"
    html = env.from_string(source).render(**build_context(runs, title))
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(path.suffix + ".tmp")
    temp.write_text(html, encoding="utf-8")
    temp.replace(path)
    return path
