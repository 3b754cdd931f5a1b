"""biarena: benchmark, judge and rank AI data analysts on SQL databases.

`import biarena` gives the Python API (`build`, `import_benchmark`, `load_benchmark`, `run`, `score`, `results`,
`report`, `judge_check`, `judge_pairwise`, `demo`, `generate_templates`, `generate_questions`, `generate_answers`,
`suite`, `synth`), each loaded on first use, so the command line's start-up does not pay for it.
"""

from biarena.lazy_exports import lazy_exports
from biarena.version import __version__ as __version__

# `report` and `synth` are the API functions; their packages stay importable by their full names.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "build": "api.build",
        "import_benchmark": "api.import_benchmark",
        "load_benchmark": "api.load_benchmark",
        "run": "api.run",
        "score": "api.score",
        "results": "api.results",
        "report": "api.report",
        "judge_check": "api.judge_check",
        "judge_pairwise": "api.judge_pairwise",
        "demo": "api.demo",
        "generate_templates": "api.generate_templates",
        "generate_questions": "api.generate_questions",
        "generate_answers": "api.generate_answers",
        "suite": "api.suite",
        "synth": "api.synth",
    },
    shadows=frozenset({"report", "synth"}),
)
