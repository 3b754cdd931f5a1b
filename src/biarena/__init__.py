"""biarena: benchmark, judge and rank AI data analysts on SQL databases.

`import biarena` gives the Python API (`build`, `import_benchmark`, `load_benchmark`, `run`, `score`, `results`,
`report`, `judge_check`, `judge_pairwise`, `demo`, `generate_templates`, `generate_questions`, `generate_answers`,
`suite`, `synth`), each loaded on first use, so the command line's start-up does not pay for it.
"""

from biarena.api_functions import API_FUNCTIONS
from biarena.lazy_exports import lazy_exports
from biarena.version import __version__ as __version__

# `report` and `synth` are the API functions; their packages stay importable by their full names.
__getattr__, __dir__ = lazy_exports(
    __name__, {f"api.{name}": name for name in API_FUNCTIONS}, shadows=frozenset({"report", "synth"})
)
