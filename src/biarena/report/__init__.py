"""Reports: a self-contained HTML report comparing runs."""

from biarena.report.html_report import write_report
from biarena.report.run_data import RunData

__all__ = ["RunData", "write_report"]
