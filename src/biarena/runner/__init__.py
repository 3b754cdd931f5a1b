"""Runs: an agent over a benchmark into a resumable run store."""

from biarena.runner.fingerprint import benchmark_fingerprint, file_sha256
from biarena.runner.run import (
    OutcomeCounts,
    RunOpening,
    RunProgress,
    RunSummary,
    make_spec,
    open_run,
    run_benchmark,
    select_questions,
)
from biarena.runner.store import RunInUse, RunStore, recognize_run_file, scores_by_question

__all__ = [
    "OutcomeCounts",
    "RunInUse",
    "RunOpening",
    "RunProgress",
    "RunStore",
    "RunSummary",
    "benchmark_fingerprint",
    "file_sha256",
    "make_spec",
    "open_run",
    "recognize_run_file",
    "run_benchmark",
    "scores_by_question",
    "select_questions",
]
