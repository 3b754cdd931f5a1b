"""Runs: an agent over a benchmark into a resumable run store.

Each name is imported from its module when first used: reading a run loads no agent.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "damaged_run": "DamagedRunFile",
    "fingerprint": ("benchmark_fingerprint", "file_sha256"),
    "run": (
        "OutcomeCounts",
        "RunOpening",
        "RunProgress",
        "RunSummary",
        "make_spec",
        "open_run",
        "run_benchmark",
        "select_questions",
    ),
    "store": ("RunInUse", "RunStore", "recognize_run_file", "scores_by_question"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
