"""write_report: one self-contained HTML file comparing runs: tables with intervals, charts, and every answer."""

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from biarena.files import write_atomically
from biarena.metrics.summary import SummaryRow
from biarena.records import Question, RunSpec
from biarena.report.analysis import Analysis, analyse
from biarena.report.answer_html import ANSWER_CSS, answer_html
from biarena.report.comparison import ComparedRun
from biarena.report.contract_disagreement import disagreement_tables
from biarena.report.groups import readable
from biarena.report.judge_check import CheckFigure
from biarena.report.repeatability_tables import repeatability_tables
from biarena.report.run_data import RunData, label_runs
from biarena.report.svg_chart import PALETTE, grouped_bars, interval_plot
from biarena.report.tables import gold_line
from biarena.version import __version__
from biarena.votes.vote import Vote
from biarena.votes.vote_file import VoteFile

OUTCOME_TEXT = {
    "ran": "ran",
    "sql_failed": "SQL failed",
    "no_answer": "no answer",
    "unanswered": "not run",
    "not_asked": "not asked",
}
"""Outcome kinds as the report writes them (`not_asked`: the question is not in that run)."""


def _category(question_label: str) -> str:
    return readable(question_label)


def _run_row(summary: ComparedRun, colour: str) -> dict[str, Any]:
    row = summary.overall
    return {
        "label": summary.run.label,
        "colour": colour,
        "spec": summary.run.spec,
        "overall": row,
        "outcomes": {k: row.outcomes.get(k, 0) for k in ("ran", "sql_failed", "no_answer", "unanswered")},
        "unscored": summary.unscored,
        "gold": gold_line(summary),
        "errors": summary.errors,
        "usage": summary.run.usage(),
        "file": "/".join(part for part in (summary.run.path.parent.name, summary.run.path.name) if part),
        "given": summary.run.spec.given_label(),
        "options": spec_options(summary.run.spec),
    }


def spec_options(spec: RunSpec) -> str:
    """The run's options in full, as the runs table shows them once (`key=value, ...`)."""
    shown = []
    for key, value in sorted(spec.options.items()):
        if value is None or key == "model":
            continue
        shown.append(f"{key}={value}")
    return ", ".join(shown)


def _entry(
    run: RunData, index: int, question: Question, asked: set[str], table: dict, judge_names: list[str]
) -> dict[str, Any]:
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
        "html": answer_html(answer) if answer is not None else "",
        "kind": kind,
        "outcome": OUTCOME_TEXT[kind],
        "error": outcome.error,
        "scores": scores,
        "judged": [(name, scores[name]) for name in judge_names if scores.get(name) is not None],
        "tokens": " ".join(tokens),
    }


def _drill(runs: list[RunData], judge_names: list[str]) -> list[dict[str, Any]]:
    questions: dict[str, Question] = {}
    for run in runs:
        for question in run.questions:
            questions.setdefault(question.id, question)
    asked = [{q.id for q in run.questions} for run in runs]
    tables = [run.score_table() for run in runs]
    drill = []
    for question in questions.values():
        entries = [_entry(run, i, question, asked[i], tables[i], judge_names) for i, run in enumerate(runs)]
        drill.append(
            {
                "question": question,
                "category": question.labels[0] if question.labels else "",
                "entries": entries,
                "search": " ".join([question.id, question.text, *question.labels, question.language]).lower(),
            }
        )
    return drill


def _series(analysis: Analysis, key: str, name: str) -> tuple[list[str], dict[str, list], dict[str, list]]:
    """Groups, means per run and intervals per run of one score in one section."""
    section = analysis.section(key)
    if section is None:
        return [], {}, {}
    groups = sorted({row.group for _, rows in section.runs for row in rows})
    means: dict[str, list] = {}
    bounds: dict[str, list] = {}
    for label, rows in section.runs:
        by_group = {row.group: row.scores.get(name) for row in rows}
        means[label] = [by_group[g].estimate if by_group.get(g) else None for g in groups]
        bounds[label] = [(by_group[g].low, by_group[g].high) if by_group.get(g) else None for g in groups]
    return groups, means, bounds


def _check_chart(judge: str, figures: list[CheckFigure]) -> str:
    shares = [(f.check.replace("_", " "), f.rate, f.low, f.high) for f in figures if not f.check.endswith("margin")]
    margins = [(f.check.replace("_", " "), f.rate, f.low, f.high) for f in figures if f.check.endswith("margin")]
    chart = interval_plot(
        shares,
        title=f"judge check: {judge}",
        domain=(0.0, 1.0),
        reference=0.5,
        caption="share of pairs where the good answer scored higher than its degraded copy (95% interval)",
        colours=["#54A24B"],
        axis="share of pairs the good answer won",
    )
    if margins:  # a margin over the best trivial rule runs from -1 to 1
        chart += interval_plot(
            margins,
            title=f"judge check: {judge}, margin over the best trivial rule",
            domain=(-1.0, 1.0),
            reference=0.0,
            caption="the judge's share of pairs won minus the best trivial rule's on the same pairs (95% interval)",
            colours=["#4C78A8"],
            axis="margin over the best trivial rule",
        )
    return chart


def _judge_blocks(analysis: Analysis, by: str) -> list[dict[str, Any]]:
    blocks = []
    judged = {j.judge for j in analysis.judges}
    for judge in analysis.judges:
        charts = []
        for name in judge.headlines:
            groups, means, bounds = _series(analysis, by, name)
            if groups and any(v is not None for vs in means.values() for v in vs):
                title = f"Mean {name} score by {'question type' if by == 'type' else 'category'}"
                charts.append(
                    grouped_bars(
                        [readable(g) for g in groups],
                        means,
                        title=title,
                        maximum=judge.maximum,
                        intervals=bounds,
                        axis=f"mean {name} score",
                    )
                )
        dims = analysis.dimensions.get(judge.judge, {})
        if dims and judge.dimensions:
            series = {label: [values.get(d) for d in judge.dimensions] for label, values in dims.items()}
            if any(v is not None for vs in series.values() for v in vs):
                charts.append(
                    grouped_bars(
                        [d.replace("_", " ") for d in judge.dimensions],
                        series,
                        title=f"{judge.judge} dimensions per system",
                        maximum=judge.maximum,
                        axis=f"mean {judge.judge} score",
                    )
                )
        figures = analysis.judge_check.get(judge.judge, [])
        blocks.append(
            {
                "judge": judge.judge,
                "charts": charts,
                "check": _check_chart(judge.judge, figures) if figures else "",
                "figures": figures,
            }
        )
    for judge, figures in analysis.judge_check.items():
        if judge not in judged:
            blocks.append({"judge": judge, "charts": [], "check": _check_chart(judge, figures), "figures": figures})
    return blocks


def _arena(analysis: Analysis, names: list[str]) -> dict[str, Any] | None:
    board = analysis.arena
    if board is None:
        return None
    overall = {s.run.label: s.overall for s in analysis.comparison.summaries}
    rows = []
    for item in board.rows:
        row: SummaryRow | None = overall.get(item.name)
        rows.append(
            {
                "rank": item.rank,
                "system": item.name,
                "strength": item.strength,
                "low": item.low,
                "high": item.high,
                "votes": item.votes,
                "win_rate": item.win_rate,
                "auto": [row.means.get(n) if row else None for n in names],
            }
        )
    voted = [r for r in board.rows if r.strength is not None]
    chart = interval_plot(
        [(r.name, r.strength, r.low, r.high) for r in voted],
        title="Bradley-Terry strength (log scale) with 95% intervals",
        reference=0.0,
        axis="strength (log odds of winning)",
        caption=f"{board.total_votes} votes; {board.ties} ties or both bad (half a win each); "
        f"{board.bootstrap} bootstrap resamples",
    )
    styled = board.style_control
    if styled is not None:  # the ranking with the answers' length and Markdown structure held fixed
        effects = ", ".join(f"{k} {v:+.2f}" for k, v in styled.coefficients.items())
        chart += interval_plot(
            [(name, styled.strength[name], styled.low[name], styled.high[name]) for name in styled.systems],
            title="Style-controlled strength (length and Markdown structure held fixed)",
            reference=0.0,
            axis="strength (log odds of winning)",
            caption=f"{styled.votes} votes whose answers are in this report; style effects (log-odds): {effects}",
        )
    matrix = [[board.wins.get((a, b)) for b in board.names] for a in board.names]
    games = [[board.matches.get((a, b), 0) for b in board.names] for a in board.names]
    return {
        "rows": rows,
        "chart": chart,
        "systems": board.names,
        "matrix": matrix,
        "games": games,
        "votes": board.total_votes,
        "unmatched": board.unmatched_votes,
        "ties": board.ties,
        "auto_names": names,
    }


def build_context(
    runs: list[RunData],
    title: str,
    *,
    votes: VoteFile | None = None,
    judge_check: dict[str, list[CheckFigure]] | None = None,
    judge_votes: dict[Path, list[Vote]] | None = None,
) -> dict[str, Any]:
    """Everything the template shows, computed from the runs (and the arena's votes and judge check, when given)."""
    analysis = analyse(runs, votes=votes, judge_check=judge_check, judge_votes=judge_votes)
    comparison = analysis.comparison
    infos = comparison.infos
    names = infos.headlines(comparison.names, judges=False)
    compared = comparison.summaries[0].questions if comparison.summaries else []
    categories = sorted({q.labels[0] for s in comparison.summaries for q in s.questions if q.labels})
    per_run = [_run_row(s, PALETTE[i % len(PALETTE)]) for i, s in enumerate(comparison.summaries)]
    by_category = []
    for summary in comparison.summaries:
        rows: dict[str, SummaryRow] = {row.group: row for row in summary.by_label}
        by_category.append({"label": summary.run.label, "rows": [(_category(c), rows.get(c)) for c in categories]})
    charts = []
    by = "category" if analysis.section("category") is not None else "type"
    by_text = "category" if by == "category" else "question type"
    for name in names:
        groups, means, bounds = _series(analysis, by, name)
        if groups:
            chart_title = f"{infos.label(name)} by {by_text}"
            axis = f"mean {infos.label(name)}"
            charts.append(
                grouped_bars([_category(c) for c in groups], means, title=chart_title, intervals=bounds, axis=axis)
            )
    if by == "category" and analysis.section("type") is not None:
        by = "type"
        groups, means, bounds = _series(analysis, "type", names[0]) if names else ([], {}, {})
        if groups:
            chart_title = f"{infos.label(names[0])} by question type"
            axis = f"mean {infos.label(names[0])}"
            charts.append(
                grouped_bars([readable(g) for g in groups], means, title=chart_title, intervals=bounds, axis=axis)
            )
    judge_names = [n for j in analysis.judges for n in (*j.headlines, *(f"{j.judge}.{d}" for d in j.dimensions))]
    sections = [
        {
            "title": section.title,
            "runs": [{"label": label, "rows": [(readable(r.group), r) for r in rows]} for label, rows in section.runs],
        }
        for section in analysis.sections
    ]
    return {
        "title": title,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
        "benchmark": runs[0].spec.benchmark_name if runs else "",
        "runs": per_run,
        "warnings": comparison.warnings,
        "compared": len(compared),
        "names": names,
        "columns": [(n, infos.label(n)) for n in names],
        "legend": [(infos.label(n), infos.info(n).description) for n in names],
        "with_cost": any(r["usage"].cost is not None for r in per_run),
        "not_run": any(r["outcomes"]["unanswered"] for r in per_run),
        "by_category": by_category,
        "categories": categories,
        "category_names": {c: _category(c) for c in categories},
        "charts": charts,
        "interval_names": [(n, infos.label(n)) for n in analysis.names],
        "sections": sections,
        "judges": _judge_blocks(analysis, by),
        "disagreements": disagreement_tables(comparison) + repeatability_tables(comparison),
        "arena": _arena(analysis, analysis.names),
        "judge_votes": analysis.judge_votes,
        "significance": analysis.significance,
        "header_of": infos.label,
        "drill": _drill(runs, judge_names),
        "outcome_text": OUTCOME_TEXT,
        "answer_css": ANSWER_CSS,
    }


def render_report(
    runs: list[RunData],
    *,
    title: str = "biarena report",
    votes: VoteFile | None = None,
    judge_check: dict[str, list[CheckFigure]] | None = None,
    judge_votes: dict[Path, list[Vote]] | None = None,
) -> str:
    """The report's HTML: styles, charts and the filter script inside, nothing fetched."""
    source = resources.files("biarena.report").joinpath("templates", "report.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["fmt"] = lambda v, d=3: "–" if v is None or v != v else f"{v:.{d}f}"
    env.filters["pval"] = lambda p: "–" if p is None or p != p else ("< 0.001" if p < 0.001 else f"{p:.3f}")
    return env.from_string(source).render(
        **build_context(runs, title, votes=votes, judge_check=judge_check, judge_votes=judge_votes)
    )


def write_report(
    runs: list[RunData],
    path: Path,
    *,
    title: str = "biarena report",
    votes: VoteFile | None = None,
    judge_check: dict[str, list[CheckFigure]] | None = None,
    judge_votes: dict[Path, list[Vote]] | None = None,
) -> Path:
    """Write the report to `path` (one HTML file with its styles and charts inside), atomically."""
    labels = [run.label for run in runs]
    if len(set(labels)) != len(labels):
        label_runs(runs)
    html = render_report(runs, title=title, votes=votes, judge_check=judge_check, judge_votes=judge_votes)
    return write_atomically(path, lambda temp: temp.write_text(html, encoding="utf-8"))
