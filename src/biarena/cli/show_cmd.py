"""`biarena show RUN`: score tables by category and by language."""

from pathlib import Path

import typer
from rich.table import Table

from biarena.cli.console import err, fmt, out
from biarena.metrics.summary import SummaryRow, overall, summarize
from biarena.runner import RunStore

COLUMNS = [
    ("ser", "SER"),
    ("execution_accuracy", "EA"),
    ("semantic_similarity", "Sem"),
    ("result_precision", "Res P"),
    ("result_recall", "Res R"),
    ("result_f1", "Res F1"),
]


def _table(title: str, rows: list[SummaryRow]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("group", no_wrap=True)
    table.add_column("n", justify="right")
    for _, header in COLUMNS:
        table.add_column(header, justify="right")
    table.add_column("scored", justify="right")
    for row in rows:
        cells = [fmt(row.means.get(name)) for name, _ in COLUMNS]
        table.add_row(row.group, str(row.count), *cells, str(row.counts.get("execution_accuracy", 0)))
    return table


def show(
    run_path: Path = typer.Argument(..., metavar="RUN", help="Run file."),
    usage: bool = typer.Option(False, "--usage", help="Also show model usage (calls, tokens, cache hits)."),
) -> None:
    """Show a run's scores by category and language, with counts."""
    with RunStore(run_path) as store:
        spec = store.spec()
        questions = store.questions()
        answers = store.answers()
        scores = store.scores()
    if spec is None:
        err.print(f"{run_path}: the run has not started")
        return
    errors = sum(1 for a in answers if a.status != "ok")
    out.print(
        f"[bold]{spec.system}[/bold] on [bold]{spec.benchmark_name}[/bold]: "
        f"{len(answers)} of {len(spec.question_ids)} answered, {errors} with errors"
    )
    if not scores:
        out.print(f"no scores yet: run `biarena score {run_path}`")
    else:
        names = [name for name, _ in COLUMNS] + ["execution_accuracy"]
        answered = {a.question_id for a in answers}
        asked = [q for q in questions if q.id in answered]
        out.print(_table("by category", summarize(asked, scores, names)))
        out.print(_table("by language", summarize(asked, scores, names, by="language")))
        out.print(_table("overall", [overall(asked, scores, names)]))
        out.print(
            "EA: execution accuracy; Sem: SQL semantic similarity; Res: result similarity. "
            "'scored' counts questions whose gold runs."
        )
    if usage:
        calls = sum(a.usage.calls for a in answers)
        hits = sum(a.usage.cache_hits for a in answers)
        prompt = sum(a.usage.prompt_tokens for a in answers)
        completion = sum(a.usage.completion_tokens for a in answers)
        out.print(
            f"usage: {calls} model calls, {hits} replies from the cache, "
            f"{prompt} prompt + {completion} completion tokens"
        )
