"""report: runs compared in one HTML file (or Markdown, CSV), as `biarena report RUN ... -o FILE`."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def report(
    runs: str | Path | Sequence[str | Path],
    out: str | Path = "report.html",
    *,
    labels: Sequence[str] | None = None,
    title: str = "biarena report",
    arena: str | Path | None = None,
    judge_check: Sequence[str | Path] | None = None,
    form: str | None = None,
    judge_votes: Sequence[str | Path] | None = None,
    **settings: Any,
) -> Path:
    """Write the report of `runs` to `out` and return its path; the format (`html`, `md`, `csv`) comes from `form`,
    else from `out`'s extension.

    `labels` name the first runs; `arena` adds an arena's leaderboard; `judge_check` files (from `judge_check`)
    put each judge's check beside its scores; `judge_votes` files (from `biarena judge pairwise -o`) add each
    pairwise judge's ranking and, with `arena`, its agreement with the human votes. Any other name is a UsageError
    that suggests the closest one."""
    from biarena.report.execute import execute_report
    from biarena.report.report_settings import ReportSettings

    values: dict[str, Any] = {
        "runs": [Path(runs)] if isinstance(runs, str | Path) else [Path(r) for r in runs],
        "out": Path(out),
        "form": form or None,
        "title": title,
        "labels": list(labels) if labels else None,
        "arena": Path(arena) if arena else None,
        "judge_check": [Path(p) for p in judge_check] if judge_check else None,
        "judge_votes": [Path(p) for p in judge_votes] if judge_votes else None,
        **settings,
    }
    execute_report(ReportSettings.of("report()", values), print_messages)
    return Path(out)
