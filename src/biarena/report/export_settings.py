"""ExportSettings: what `biarena export` asks of an export (one row per question of each run)."""

from pathlib import Path

from biarena.settings import Settings


class ExportSettings(Settings):
    """Runs exported as rows: JSONL, CSV or Parquet, to a file or a stream."""

    runs: list[Path]
    format: str | None = None
    """jsonl, csv or parquet; default: from `out`'s extension (jsonl for a stream)."""
    out: Path | None = None
    """File to write; None: the stream the caller gives."""
    labels: list[str] | None = None
    nested: bool = False
    """JSONL only: the scores as one object under "scores" instead of a column each."""
    rows: int | None = None
    """Each answer's result rows and its gold's, up to this many per result (None: none); see `KeptRows`."""
