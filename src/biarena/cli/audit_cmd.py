"""`biarena audit BENCH`: report problems in a benchmark's gold SQL; exit 1 when there are any."""

import json
from collections import Counter

import typer
from rich.table import Table

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err, out
from biarena.cli.options import DB_URL, TIMEOUT, db_overrides
from biarena.db import DatabasePool
from biarena.metrics.gold_audit import KINDS, audit_benchmark


def audit(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
) -> None:
    """Check every gold query: failures, empty results, string aggregates, ties, missing ORDER BY, clock."""
    benchmark = resolve_benchmark(benchmark_arg)
    pool = DatabasePool(benchmark, overrides=db_overrides(db_url, benchmark), timeout=timeout)
    try:
        pool.open_all()
        findings = audit_benchmark(benchmark, pool)
    finally:
        pool.close()
    counts = Counter(f.kind for f in findings)
    if as_json:
        payload = {
            "benchmark": benchmark.name,
            "questions": len(benchmark.questions),
            "problems": len(findings),
            "by_kind": {kind: counts.get(kind, 0) for kind in KINDS},
            "findings": [f.__dict__ for f in findings],
        }
        out.print_json(json.dumps(payload, ensure_ascii=False))
    else:
        if findings:
            detail = Table(title=f"gold problems in {benchmark.name}", title_justify="left")
            for column in ("question", "problem", "detail"):
                detail.add_column(column, overflow="fold")
            for finding in findings:
                detail.add_row(finding.question_id, finding.kind, finding.detail)
            out.print(detail)
        summary = Table(title="summary", title_justify="left")
        summary.add_column("problem", no_wrap=True)
        summary.add_column("meaning")
        summary.add_column("questions", justify="right")
        for kind, meaning in KINDS.items():
            summary.add_row(kind, meaning, str(len({f.question_id for f in findings if f.kind == kind})))
        out.print(summary)
        flagged = len({f.question_id for f in findings})
        err.print(f"{flagged} of {len(benchmark.questions)} questions have gold problems")
    if findings:
        raise typer.Exit(1)
