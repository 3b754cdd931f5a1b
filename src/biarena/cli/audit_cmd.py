"""`biarena audit BENCH`: report problems in a benchmark's gold SQL; exit 1 when there are any."""

import json
import sys
from collections import Counter

import typer
from rich.text import Text

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import err, new_table, print_table, row
from biarena.cli.options import ALLOW_SUPERUSER, DB_URL, SANDBOX, TIMEOUT, db_overrides, flag, sandbox_limits
from biarena.db import DatabasePool
from biarena.metrics.gold_audit import KINDS, audit_benchmark


def audit(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory or built-in name."),
    as_json: bool = flag("--json", "Print the findings as JSON."),
    db_url: list[str] | None = DB_URL,
    timeout: float = TIMEOUT,
    sandbox: list[str] | None = SANDBOX,
    allow_superuser: bool = ALLOW_SUPERUSER,
) -> None:
    """Check every gold query: failures, empty results, string aggregates, ties, missing ORDER BY, clock.

    Ties (LIMIT cutting through them, ORDER BY keys tying for rows that differ) and NULL ORDER BY keys without
    NULLS FIRST/LAST leave the gold's answer open: each is shown with the rows concerned."""
    benchmark = resolve_benchmark(benchmark_arg)
    with_gold = sum(1 for q in benchmark.questions if q.gold_sql)
    if not with_gold:
        note = f"nothing to audit: none of the {len(benchmark.questions)} questions of {benchmark.name} has gold SQL"
        if as_json:
            payload = {"benchmark": benchmark.name, "questions": len(benchmark.questions), "with_gold": 0}
            sys.stdout.write(json.dumps({**payload, "problems": 0, "findings": [], "note": note}) + "\n")
        else:
            err.print(Text(note))
        return
    pool = DatabasePool(
        benchmark,
        overrides=db_overrides(db_url, benchmark),
        limits=sandbox_limits(sandbox, timeout),
        allow_superuser=allow_superuser,
    )
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
            "with_gold": with_gold,
            "problems": len(findings),
            "by_kind": {kind: counts.get(kind, 0) for kind in KINDS},
            "findings": [f.__dict__ for f in findings],
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        if findings:
            detail = new_table(
                f"gold problems in {benchmark.name}", [("question", "name"), ("problem", "name"), ("detail", "text")]
            )
            for finding in findings:
                row(detail, finding.question_id, finding.kind, finding.detail)
            print_table(detail)
        summary = new_table("summary", [("problem", "name"), ("meaning", "text"), ("questions", "number")])
        for kind, meaning in KINDS.items():
            row(summary, kind, meaning, len({f.question_id for f in findings if f.kind == kind}))
        print_table(summary)
        flagged = len({f.question_id for f in findings})
        without = len(benchmark.questions) - with_gold
        skipped = f" ({without} without gold SQL not audited)" if without else ""
        err.print(Text(f"{flagged} of {with_gold} questions with gold SQL have gold problems{skipped}"))
    if findings:
        raise typer.Exit(1)
