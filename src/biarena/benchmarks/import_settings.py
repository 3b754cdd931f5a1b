"""ImportSettings: what `biarena import FORMAT PATH -o DIR` asks of an import."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


class ImportSettings(Settings):
    """A published benchmark read by an importer into the native format."""

    importer: str
    """The importer (`biarena describe importer` lists them)."""
    path: Path
    """The published file or folder."""
    out: Path
    """Directory to write the benchmark to (absent or empty, or a benchmark directory with `force`)."""
    options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The importer's own options, as values or `NAME=VALUE` texts (`-O`); they win over `options_file`'s."""
    options_file: Path | None = None
    force: bool = False
    """Replace an existing benchmark directory (never any other folder)."""
    skip_missing: bool = False
    """Import only the questions whose database is present (the same as option skip_missing=true)."""
    gold_check: bool = True
    """Run the gold once imported and say how many questions' gold fails."""
