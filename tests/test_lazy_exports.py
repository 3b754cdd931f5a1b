"""Packages export their names lazily: importing one module loads no sibling, and an exported function named like
its module stays the function."""

import importlib
import subprocess
import sys
import types


def test_an_exported_function_named_like_its_module_stays_the_function() -> None:
    # The modules load first, as a sibling's import would load them.
    for name in ("biarena.metrics.result_similarity", "biarena.stats.agreement"):
        importlib.import_module(name)
    from biarena import metrics, stats
    from biarena.metrics import result_similarity, semantic_similarity
    from biarena.stats import agreement

    for exported in (result_similarity, semantic_similarity, agreement):
        assert callable(exported) and not isinstance(exported, types.ModuleType), exported
    assert metrics.result_similarity is result_similarity and stats.agreement is agreement
    assert sys.modules["biarena.metrics.result_similarity"].result_similarity is result_similarity


def test_importing_one_module_loads_none_of_the_heavy_siblings() -> None:
    code = (
        "import sys; import biarena.stats.bootstrap, biarena.report.run_data, biarena.runner.store;"
        "heavy = ('statsmodels', 'biarena.report.html_report', 'biarena.agents');"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""
