"""ReportSettings: what `biarena report` and `biarena.report(...)` ask of a report."""

from pathlib import Path
from typing import Literal

from pydantic import Field

from biarena.settings import Settings

ReportForm = Literal["html", "md", "csv"]
SUFFIXES: dict[str, ReportForm] = {".html": "html", ".htm": "html", ".md": "md", ".csv": "csv"}
"""The format an output file's extension asks for."""


class ReportSettings(Settings):
    """A report of runs (scored run files or campaign folders)."""

    runs: list[Path] = Field(min_length=1)
    out: Path | None = None
    """File to write (default report.html, report.md or report.csv by the format)."""
    form: ReportForm | None = Field(default=None, json_schema_extra={"flag": "--format"})
    """html, md or csv; default: from `out`'s extension, else html."""
    title: str = "biarena report"
    labels: list[str] | None = None
    """Names of the first runs (the rest: their label, else agent · model)."""
    arena: Path | None = None
    """An arena database whose votes make the Bradley-Terry leaderboard."""
    judge_check: list[Path] | None = None
    """Files `biarena judge check -o` wrote, shown beside each judge's scores."""
    judge_votes: list[Path] | None = None
    """Verdicts `biarena judge pairwise -o` wrote."""

    def form_and_target(self) -> tuple[ReportForm, Path]:
        """The format (given, else from the extension, else html) and the file to write."""
        form = self.form
        if form is None:
            form = SUFFIXES.get(self.out.suffix.lower(), "html") if self.out is not None else "html"
        return form, self.out or Path(f"report.{form}")
