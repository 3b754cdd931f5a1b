"""Reports: runs compared side by side as tables (text, Markdown, CSV, JSON), exports, and one HTML file.

Each name is imported from its module when first used: `show` does not load the HTML report's charts and tests.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "comparison": ("Comparison", "compare"),
    "html_report": "write_report",
    "run_data": ("RunData", "label_runs", "read_runs"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
