"""The Python API: what the command line does, as functions a notebook calls (`import biarena`, then
`biarena.run(...)`). Each function calls the command's own code, so options, defaults and errors are the CLI's."""

from biarena.lazy_exports import lazy_exports

FUNCTIONS = (
    "build",
    "import_benchmark",
    "load_benchmark",
    "run",
    "score",
    "results",
    "report",
    "judge_check",
    "judge_pairwise",
    "demo",
    "generate_templates",
    "generate_questions",
    "generate_answers",
    "suite",
    "synth",
)
"""The API's functions, each in a module of its own name."""

__getattr__, __dir__ = lazy_exports(__name__, {name: name for name in FUNCTIONS})
