"""`biarena validate BENCH`: review a benchmark's questions in the terminal: accept, edit or reject each."""

import getpass
import os
from pathlib import Path

import typer
from rich.text import Text

from biarena.benchmarks import resolve_benchmark
from biarena.cli.console import out
from biarena.errors import UsageError
from biarena.generate.validation import VALIDATION_FILE, load_checks, load_decisions, record_decision
from biarena.records import Question

_KEYS = "a accept, e edit, r reject, s skip, q quit"


def _reviewer(name: str | None) -> str:
    chosen = name or os.environ.get("USER") or os.environ.get("USERNAME")
    if not chosen:
        try:
            chosen = getpass.getuser()
        except (KeyError, OSError):
            chosen = None
    if not chosen or not chosen.strip():
        raise UsageError("name the reviewer with --reviewer NAME")
    return chosen.strip()


def _show(question: Question, position: str, check: dict | None) -> None:
    out.print(Text(f"\n[{position}] {question.id}", style="bold"))
    out.print(Text(f"question:  {question.text}"))
    out.print(Text(f"labels:    {', '.join(question.labels) or '-'}"))
    out.print(Text(f"tables:    {', '.join(question.tables) or '-'}"))
    if question.domain:
        out.print(Text(f"domain:    {question.domain}"))
    if question.reference_answer:
        out.print(Text(f"reference: {question.reference_answer}"))
    if not check:
        return
    answerability = check.get("answerability") or {}
    if answerability.get("reasoning"):
        verdict = answerability.get("answerability", "")
        out.print(Text(f"checker:   {verdict}: {answerability['reasoning']}"))
    verified = check.get("tables_verified") or {}
    if verified.get("explanation"):
        identified = (check.get("tables_identified") or {}).get("tables") or []
        corrected = f" (corrected from {', '.join(identified) or 'none'})" if check.get("tables_corrected") else ""
        out.print(Text(f"tables by checker{corrected}: {verified['explanation']}"))
    if check.get("conjecture"):
        out.print(Text(f"conjecture: {check['conjecture']}"))
    if check.get("rows_injected"):
        rows = ", ".join(f"{table} {count}" for table, count in check["rows_injected"].items())
        out.print(Text(f"rows injected: {rows}"))


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def validate(
    benchmark_arg: str = typer.Argument(..., metavar="BENCH", help="Benchmark directory."),
    reviewer: str | None = typer.Option(None, "--reviewer", help="Who decides (default: $USER)."),
) -> None:
    """Review the questions nobody has decided on: a accept, e edit, r reject, s skip, q quit.

    Shows each question with its labels, tables and what the generation's checker said. Decisions are stored in
    the benchmark directory (validation.jsonl, with who and when) as they are made, so a review resumes where it
    stopped; `biarena run --accepted-only` runs only the accepted questions (edited ones with their new text).
    """
    who = _reviewer(reviewer)
    benchmark = resolve_benchmark(benchmark_arg)
    root = benchmark.root or Path(benchmark_arg)
    decided = load_decisions(root)
    checks = load_checks(root)
    pending = [q for q in benchmark.questions if q.id not in decided]
    total = len(benchmark.questions)
    out.print(Text(f"{benchmark.name}: {total - len(pending)} of {total} questions decided, {len(pending)} to review"))
    if pending:
        out.print(Text(f"keys: {_KEYS} (then Enter)"))
    counts = {"accepted": 0, "edited": 0, "rejected": 0, "skipped": 0}
    stopped = False
    for index, question in enumerate(pending, 1):
        _show(question, f"{index}/{len(pending)}", checks.get(question.id))
        while True:
            key = _ask("decision [a/e/r/s/q]: ")
            key = "q" if key is None else key.strip().lower()[:1]
            if key == "e":
                text = _ask("new text (empty to go back): ")
                if text is None:
                    key = "q"
                elif text.strip():
                    record_decision(benchmark, question, "edited", who, text)
                    counts["edited"] += 1
                    break
                else:
                    continue
            if key in ("a", "r"):
                decision = "accepted" if key == "a" else "rejected"
                record_decision(benchmark, question, decision, who)
                counts[decision] += 1
                break
            if key == "s":
                counts["skipped"] += 1
                break
            if key == "q":
                stopped = True
                break
            out.print(Text(f"type one of: {_KEYS}"))
        if stopped:
            break
    left = len(pending) - counts["accepted"] - counts["edited"] - counts["rejected"]
    summary = ", ".join(f"{n} {what}" for what, n in counts.items())
    out.print(Text(f"\n{summary}; {left} still to decide; decisions in {root / VALIDATION_FILE}"))
