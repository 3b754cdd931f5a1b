"""Runs: an agent over a benchmark into a resumable run store."""

from biarena.runner.run import (
    RunProgress,
    RunSummary,
    make_spec,
    open_run,
    run_benchmark,
    select_questions,
)
from biarena.runner.store import RunStore, scores_by_question

__all__ = [
    "RunProgress",
    "RunStore",
    "RunSummary",
    "make_spec",
    "open_run",
    "run_benchmark",
    "scores_by_question",
    "select_questions",
]
