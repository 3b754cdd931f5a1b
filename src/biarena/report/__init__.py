"""Reports: runs compared side by side as tables (text, Markdown, CSV, JSON), exports, and one HTML file."""

from biarena.report.comparison import Comparison, compare
from biarena.report.html_report import write_report
from biarena.report.run_data import RunData, label_runs, read_runs

__all__ = ["Comparison", "RunData", "compare", "label_runs", "read_runs", "write_report"]
