"""Reports: runs compared side by side as tables (text, Markdown, CSV, JSON), exports, and one HTML file.

Each name is imported from its module when first used: `show` does not load the HTML report's charts and tests.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "Comparison": "comparison",
    "compare": "comparison",
    "write_report": "html_report",
    "RunData": "run_data",
    "label_runs": "run_data",
    "read_runs": "run_data",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
