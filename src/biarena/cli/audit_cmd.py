"""`biarena audit BENCH`: report problems in a benchmark's gold SQL; exit 1 when there are any."""

import json
import sys

import typer
from rich.text import Text

from biarena.cli.console import err, new_table, print_table, row, stage_progress
from biarena.cli.options import ALLOW_SUPERUSER, DB_URL, SANDBOX, TIMEOUT, flag
from biarena.metrics.execute_audit import AuditSettings, execute_audit
from biarena.metrics.gold_audit import KINDS


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
    settings = AuditSettings(
        benchmark=benchmark_arg, db_url=db_url, timeout=timeout, sandbox=sandbox, allow_superuser=allow_superuser
    )
    if err.is_terminal:
        with stage_progress(f"auditing {benchmark_arg}", 0) as progress:
            result = execute_audit(settings, lambda event: progress(event.done, event.total, event.item, event.stage))
    else:  # a log gets the findings alone, not a line per question
        result = execute_audit(settings)
    benchmark, findings, with_gold = result.benchmark, result.findings, result.with_gold
    if as_json:
        sys.stdout.write(json.dumps(result.as_json(), ensure_ascii=False, indent=2 if with_gold else None) + "\n")
    elif result.note() is not None:
        err.print(Text(result.note() or ""))
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
