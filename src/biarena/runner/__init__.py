"""Runs: an agent over a benchmark into a resumable run store.

Each name is imported from its module when first used: reading a run loads no agent.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "DamagedRunFile": "damaged_run",
    "benchmark_fingerprint": "fingerprint",
    "file_sha256": "fingerprint",
    "OutcomeCounts": "run",
    "RunOpening": "run",
    "RunProgress": "run",
    "RunSummary": "run",
    "make_spec": "run",
    "open_run": "run",
    "run_benchmark": "run",
    "select_questions": "run",
    "RunInUse": "store",
    "RunStore": "store",
    "recognize_run_file": "store",
    "scores_by_question": "store",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
