"""API_FUNCTIONS: the names of the Python API's functions (`biarena.run`, ...), read without loading the API."""

API_FUNCTIONS = (
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
"""The API's functions, each in a module of its own name in `biarena.api`."""
