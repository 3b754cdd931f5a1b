"""SynthSettings: what `biarena synth VERTICAL -o PATH` and `biarena.synth(...)` ask of the simulator."""

from pathlib import Path

from pydantic import Field

from biarena.settings import Settings


class SynthSettings(Settings):
    """A vertical's database generated into a file (SQLite, DuckDB) or a Parquet directory, then verified."""

    vertical: str
    """A built-in vertical's name (or alias), or the path of a spec .yaml."""
    out: Path
    """File (SQLite, DuckDB) or directory (Parquet) to write."""
    scale: float = Field(1.0, ge=0.001, json_schema_extra={"flag": "--scale"})
    """Row counts times this."""
    seed: int = 0
    """The same seed and scale give byte-identical output."""
    format: str | None = Field(None, json_schema_extra={"flag": "--format"})
    """sqlite, duckdb or parquet; default from the path (.duckdb, .parquet or a directory, else sqlite)."""
    verify: bool = True
    """Check every rule of the spec on the written data (a rule that does not hold is a FormatError)."""
    partitions: int | None = None
    """Write Parquet as this many day-range parts per table, drawn in parallel."""
    workers: int | None = None
    """Processes drawing parts (this one and `workers - 1` more), or Ray tasks (with `partitions`); default: the
    cores."""
    engine: str = "local"
    """local (a process pool) or ray (needs biarena[ray]), with `partitions`."""
    address: str | None = None
    """The Ray cluster for engine ray (default: start one)."""
