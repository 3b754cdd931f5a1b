"""The Python API: what the command line does, as functions a notebook calls (`import biarena`, then
`biarena.run(...)`). Each function calls the command's own code, so options, defaults and errors are the CLI's."""

from biarena.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "build": "build",
        "import_benchmark": "import_benchmark",
        "load_benchmark": "load_benchmark",
        "run": "run",
        "score": "score",
        "results": "results",
        "report": "report",
        "judge_check": "judge_check",
        "judge_pairwise": "judge_pairwise",
        "demo": "demo",
        "generate_templates": "generate_templates",
        "generate_questions": "generate_questions",
        "generate_answers": "generate_answers",
        "suite": "suite",
        "synth": "synth",
    },
)
