"""`biarena demo`: the main job on the embedded defaults, offline: build, run, score, report."""

from pathlib import Path

import typer
from rich.table import Table

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err, fmt, out
from biarena.cli.run_cmd import build_system, execute_run
from biarena.db import DatabasePool
from biarena.metrics import SCORERS, ScoringContext
from biarena.metrics.score_run import score_run
from biarena.metrics.summary import overall
from biarena.report import RunData, write_report
from biarena.runner import RunStore, select_questions


def demo(
    out_dir: Path = typer.Option(Path("biarena-demo"), "-o", "--out", help="Directory for runs and the report."),
    benchmark_arg: str = typer.Option("bis-synth", "--benchmark", help="Benchmark directory or built-in name."),
    model: str = typer.Option("local", "--model", help="local (embedded), local:/path.gguf, openai:MODEL[@URL]."),
    agents: str = typer.Option("text2sql,sequential", "--agents", help="Comma-separated agents to compare."),
    per_category: int = typer.Option(2, "--per-category", min=1, help="Questions per category (stratified)."),
    max_queries: int = typer.Option(2, "--max-queries", min=1, help="Queries the sequential agent may write."),
) -> None:
    """Build the built-in benchmark, run agents with the local model, score them, and write report.html."""
    names = [a.strip() for a in agents.split(",") if a.strip()]
    err.print(f"[bold]1/4[/bold] loading benchmark {benchmark_arg} (built on first use) ...")
    benchmark = resolve_benchmark(benchmark_arg)
    questions = select_questions(benchmark, per_category=per_category)
    err.print(f"      {len(questions)} questions: {per_category} per category from {len(benchmark.questions)}")
    err.print(
        f"[bold]2/4[/bold] preparing model {model} (the embedded model is assembled and checked on first use) ..."
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = []
    for index, name in enumerate(names, start=1):
        options = {"max_queries": max_queries} if name == "sequential" else {}
        system = build_system(name, model=model, **options)
        path = out_dir / f"{name}.run"
        err.print(f"[bold]3/4[/bold] agent {index}/{len(names)}: {name} → {path}")
        pool = DatabasePool(benchmark)
        try:
            execute_run(benchmark_arg, benchmark, system, questions, pool, path)
            with RunStore(path) as store:
                score_run(store, ScoringContext(benchmark=benchmark, databases=pool), [f() for f in SCORERS.values()])
        finally:
            pool.close()
        runs.append(RunData.read(path))
    err.print("[bold]4/4[/bold] writing the report ...")
    report = write_report(runs, out_dir / "report.html", title=f"biarena demo: {', '.join(names)} on {benchmark.name}")
    table = Table(title=f"{benchmark.name}: {len(questions)} questions, model {model}", title_justify="left")
    for column in ("agent", "answered", "errors", "SER", "EA", "SQL sim.", "result F1", "calls"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    names_ = ["ser", "execution_accuracy", "semantic_similarity", "result_f1"]
    for run in runs:
        row = overall(run.questions, run.scores, names_)
        errors = sum(1 for a in run.answers if a.status != "ok")
        calls = sum(a.usage.calls for a in run.answers)
        table.add_row(
            run.spec.system, str(len(run.answers)), str(errors), *(fmt(row.means.get(n)) for n in names_), str(calls)
        )
    out.print(table)
    out.print(
        "SER: share of SQL that runs; EA: execution accuracy; SQL sim.: BIS semantic similarity; "
        "result F1: BIS result similarity."
    )
    out.print(f"report: [bold]{report.resolve()}[/bold]  (open it in a browser)")
