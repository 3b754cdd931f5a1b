"""A comparison as rows: for text tables, Markdown, CSV and JSON (full precision where a program reads it)."""

import csv
import io
from typing import Any

from biarena.metrics.summary import SummaryRow
from biarena.report.comparison import ComparedRun, Comparison
from biarena.report.judge_tables import judge_json, judge_legend, judge_rows, judge_scores, judge_tables
from biarena.runner.run import ToolFigures

SECTIONS = [("by category", "by_label"), ("by language", "by_language"), ("overall", "overall")]
"""Table title and ComparedRun field, in the order they print."""

LEGEND = (
    "coverage: questions answered (the SQL ran or failed) of those asked; a question without an answer counts 0 "
    "in every mean. 'scored': questions execution accuracy counts (those whose gold runs; without it, the most "
    "any metric scored); '-': nothing to score."
)


def legend(comparison: Comparison) -> str:
    """The metric tables' legend: how they count, then what each shown label means."""
    infos = comparison.infos
    labels = [f"{infos.label(n)}: {infos.info(n).description}" for n in shown_names(comparison)]
    return LEGEND + (" " + "; ".join(labels) + "." if labels else "")


def shown_names(comparison: Comparison) -> list[str]:
    """Score names the metric tables show: the runs' metrics their declarations show (judges have tables of
    their own)."""
    infos = comparison.infos
    return [n for n in comparison.names if not infos.is_judge(n) and infos.info(n).shown]


def section_rows(comparison: Comparison, field: str) -> list[tuple[ComparedRun, SummaryRow]]:
    """(run, row) pairs of one section, grouped by group, runs in their order within a group."""
    pairs = []
    for summary in comparison.summaries:
        rows = [summary.overall] if field == "overall" else getattr(summary, field)
        pairs.extend((summary, row) for row in rows)
    order = {s.run.label: i for i, s in enumerate(comparison.summaries)}
    return sorted(pairs, key=lambda pair: (pair[1].group, order[pair[0].run.label]))


def coverage_text(row: SummaryRow) -> str:
    """Answered / asked, as `12/20`."""
    return f"{row.answered}/{row.count}"


def fmt(value: float | None, digits: int = 3) -> str:
    """A score for a text table ('-' when absent)."""
    return "-" if value is None else f"{value:.{digits}f}"


def outcome_line(summary: ComparedRun) -> str:
    """What happened to the compared questions, in one line."""
    kinds = summary.overall.outcomes
    row = summary.overall
    line = (
        f"{row.answered} of {row.count} answered ({kinds.get('ran', 0)} ran, {kinds.get('sql_failed', 0)} SQL failed), "
        f"{kinds.get('no_answer', 0)} no answer"
    )
    if kinds.get("unanswered"):
        line += f", {kinds['unanswered']} not run"
    if summary.unscored:
        line += f"; {summary.unscored} answers not scored yet"
    gold = gold_line(summary)
    tools = tools_line(summary)
    return line + (f"; {gold}" if gold else "") + (f"; {tools}" if tools else "")


def tools_line(summary: ComparedRun) -> str | None:
    """`tools: 3.0 statements per answer, 2 failed, 0.41 s in the database` for a run whose answers used the
    database tools; None for one whose did not."""
    figures = ToolFigures()
    for answer in (*summary.run.answers, *(a for t in summary.run.tries for a in t.answers)):
        figures.add(answer)
    if not figures.answers:
        return None
    return (
        f"tools: {figures.statements / figures.answers:.1f} statements per answer, {figures.failed_statements} "
        f"failed, {figures.database_seconds:.2f} s in the database"
    )


def gold_line(summary: ComparedRun, label: str = "EA") -> str | None:
    """`EA over 60 of 500 questions (440 gold fail: biarena audit BENCH)` when the gold metric's mean counts fewer
    questions than were compared; None when it counts them all (or the run has no gold metric)."""
    gold, scored = summary.gold, summary.scored
    if gold is None or scored is None or scored >= gold.questions:
        return None
    name = label if summary.gold_score == "execution_accuracy" else str(summary.gold_score)
    problems = gold.problems()
    audit = f": `biarena audit {summary.run.spec.benchmark}`" if not gold.healthy else ""
    return f"{name} over {scored} of {gold.questions} questions" + (f" ({problems}{audit})" if problems else "")


def usage_line(summary: ComparedRun) -> str:
    """A run's model usage in one line, with the cost when its answers are priced."""
    spent = summary.run.usage()
    line = (
        f"usage: {spent.calls} model calls, {spent.cache_hits} replies from the cache, "
        f"{spent.prompt_tokens} prompt + {spent.completion_tokens} completion tokens"
    )
    line += f", cost {spent.cost:.4f}" if spent.cost is not None else ""
    judged = [s.usage for s in summary.run.scores if s.usage is not None]
    if judged:
        tokens = sum(u.prompt_tokens + u.completion_tokens for u in judged)
        calls, hits = sum(u.calls for u in judged), sum(u.cache_hits for u in judged)
        line += f"; judges: {calls} model calls, {hits} replies from the cache, {tokens} tokens"
    return line


def run_title(summary: ComparedRun) -> str:
    """`label: system (model) on benchmark`."""
    run = summary.run
    system = f"{run.spec.system} ({run.spec.model})" if run.spec.model else run.spec.system
    return f"{run.label}: {system} on {run.spec.benchmark_name}"


def _row_json(row: SummaryRow, names: list[str]) -> dict[str, Any]:
    return {
        "group": row.group,
        "questions": row.count,
        "answered": row.answered,
        "coverage": row.coverage,
        "outcomes": {k: row.outcomes.get(k, 0) for k in ("ran", "sql_failed", "no_answer", "unanswered")},
        "scores": {name: row.means.get(name) for name in names},
        "counted": {name: row.counts.get(name, 0) for name in names},
    }


def _gold_json(summary: ComparedRun) -> dict[str, Any] | None:
    gold = summary.gold
    if gold is None:
        return None
    return {
        "score": summary.gold_score,
        "scored": summary.scored,
        "questions": gold.questions,
        "gold_fail": len(gold.failing),
        "undetermined": len(gold.undetermined),
        "without_gold": gold.without_gold,
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """Everything `show` prints, as JSON-ready data with full-precision means (judges' scores under `judges`)."""
    names = [n for n in comparison.names if not comparison.infos.is_judge(n)]
    runs = []
    for summary in comparison.summaries:
        run = summary.run
        runs.append(
            {
                "label": run.label,
                "path": str(run.path),
                "system": run.spec.system,
                "model": run.spec.model,
                "benchmark": run.spec.benchmark_name,
                "unscored": summary.unscored,
                "errors": [{"error": e, "count": n} for e, n in summary.errors],
                "overall": _row_json(summary.overall, names),
                "by_category": [_row_json(r, names) for r in summary.by_label],
                "by_language": [_row_json(r, names) for r in summary.by_language],
                "usage": run.usage().model_dump(),
                "gold": _gold_json(summary),
            }
        )
    return {
        "runs": runs,
        "judges": judge_json(comparison),
        "warnings": comparison.warnings,
        "compared_questions": comparison.shared,
    }


USAGE_FIELDS = ["calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost"]


def comparison_csv(comparison: Comparison, *, usage: bool = False) -> str:
    """One CSV row per run and group, in every section, then per judge and question type (table `judge NAME`);
    means at full precision, empty when absent."""
    names = comparison.names
    fields = ["run", "system", "model", "benchmark", "table", "group", "questions", "answered", "coverage", *names]
    fields.append("scored")
    if usage:
        fields += USAGE_FIELDS
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fields)
    for title, field in SECTIONS:
        for summary, row in section_rows(comparison, field):
            spec = summary.run.spec
            cells = [summary.run.label, spec.system, spec.model, spec.benchmark_name, title.split()[-1], row.group]
            means = [None if comparison.infos.is_judge(n) else row.means.get(n) for n in names]
            cells += [row.count, row.answered, row.coverage, *means]
            cells.append(scored_count(row, comparison.infos.metric_names(names), summary.gold_score))
            if usage:
                spent = summary.run.usage()
                cells += [getattr(spent, f) for f in USAGE_FIELDS]
            writer.writerow(["" if c is None else c for c in cells])
    scores = [s for summary in comparison.summaries for s in summary.run.scores]
    for judge, judged in judge_scores(scores).items():
        for item in judge_rows(comparison, judge, judged):
            spec = item.run.run.spec
            row = item.row
            cells = [item.run.run.label, spec.system, spec.model, spec.benchmark_name, f"judge {judge}", item.group]
            cells += [
                row.count,
                row.answered,
                row.coverage,
                *(row.means.get(n) if n in judged else None for n in names),
            ]
            cells.append(max((row.counts.get(n, 0) for n in judged), default=0))
            if usage:
                cells += [None] * len(USAGE_FIELDS)
            writer.writerow(["" if c is None else c for c in cells])
    return buffer.getvalue()


def scored_count(row: SummaryRow, names: list[str], gold_score: str | None = None) -> int:
    """The questions of a row really scored: those `gold_score` (the run's gold metric) counts, a question whose
    gold fails or is undetermined left out; without one, the most any metric among `names` has scored."""
    if gold_score is not None:
        return row.counts.get(gold_score, 0)
    return max((row.counts.get(name, 0) for name in names), default=0)


def _md_cell(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_table(headers: list[str], rows: list[list[object]], numeric: set[int]) -> str:
    """A GitHub-style pipe table; `numeric` columns align right."""
    lines = ["| " + " | ".join(_md_cell(h) for h in headers) + " |"]
    lines.append("|" + "|".join("---:" if i in numeric else "---" for i in range(len(headers))) + "|")
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def comparison_rows(comparison: Comparison, field: str) -> tuple[list[str], list[list[str]], set[int]]:
    """Headers, text cells and numeric column indexes of one section, as text tables show it."""
    names = shown_names(comparison)
    several = len(comparison.summaries) > 1
    labels = [comparison.infos.label(n) for n in names]
    headers = ["group", *(["run"] if several else []), "coverage", *labels, "scored"]
    rows = []
    for summary, row in section_rows(comparison, field):
        cells = [row.group, *([summary.run.label] if several else []), coverage_text(row)]
        cells += [fmt(row.means.get(n)) for n in names]
        cells.append(str(scored_count(row, comparison.infos.metric_names(names), summary.gold_score)))
        rows.append(cells)
    return headers, rows, set(range(2 if several else 1, len(headers)))


def usage_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the usage table (a cost column when any answer has a cost)."""
    spent = [(s.run.label, s.run.usage()) for s in comparison.summaries]
    with_cost = any(u.cost is not None for _, u in spent)
    headers = ["run", "model calls", "from cache", "prompt tokens", "completion tokens"]
    headers += ["cost"] if with_cost else []
    rows = []
    for label, u in spent:
        cells = [label, str(u.calls), str(u.cache_hits), str(u.prompt_tokens), str(u.completion_tokens)]
        if with_cost:
            cells.append("-" if u.cost is None else f"{u.cost:.4f}")
        rows.append(cells)
    return headers, rows


def comparison_markdown(comparison: Comparison, *, usage: bool = False) -> str:
    """The comparison as Markdown: each run's outcomes, then a table per section."""
    parts = [f"- **{_md_cell(run_title(s))}**: {outcome_line(s)}" for s in comparison.summaries]
    parts = ["\n".join(parts)]
    parts += [f"> warning: {w}" for w in comparison.warnings]
    for title, field in SECTIONS:
        headers, rows, numeric = comparison_rows(comparison, field)
        parts.append(f"### {title}\n\n" + markdown_table(headers, rows, numeric))
    judged = judge_tables(comparison)
    for title, headers, rows, numeric in judged:
        parts.append(f"### {title}\n\n" + markdown_table(headers, rows, numeric))
    if usage:
        headers, rows = usage_rows(comparison)
        parts.append("### usage\n\n" + markdown_table(headers, rows, set(range(1, len(headers)))))
    parts.append(legend(comparison))
    if judged:
        parts.append(judge_legend(comparison))
    return "\n\n".join(parts) + "\n"
