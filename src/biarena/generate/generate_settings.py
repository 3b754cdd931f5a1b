"""The settings of `biarena generate templates|roles|questions|answers` and their Python API functions."""

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


class TemplatesSettings(Settings):
    """Template questions (the 9 BIS categories) over a database, written as a benchmark directory."""

    database: str
    """SQLite or DuckDB file, or a server URL (postgresql://...)."""
    out: Path
    """Benchmark directory to write."""
    roles: Path | None = None
    """roles.yaml (default: a draft of the schema)."""
    languages: list[str] | None = None
    """Languages: en, zh (default: those the roles' names are in)."""
    per_category: int | None = Field(None, ge=1, json_schema_extra={"flag": "--per-category"})
    """Questions (per language) per category (default: 8, more where the roles have many facts: about 6 a fact)."""
    seed: int = 0
    """Random seed: the same seed gives the same questions."""
    now: datetime | None = None
    """Clock anchor (default: the latest timestamp)."""
    name: str | None = None
    """Benchmark name (default: the output directory's name)."""


class RolesSettings(Settings):
    """A roles file drafted from a database's schema."""

    database: str
    """SQLite or DuckDB file, or a server URL."""
    out: Path
    """roles.yaml to write."""
    name: str | None = None
    """The database's name in the benchmark (default: its file's)."""
    force: bool = False
    """Replace an existing file."""


class QuestionsSettings(Settings):
    """Questions generated over a database (BI-Bench's pipeline or the template factory), journaled in `out`."""

    database: str
    """SQLite or DuckDB file, or a server URL."""
    out: Path
    """Benchmark directory to write (continued when it holds one)."""
    method: str = "llm"
    """llm (BI-Bench's pipeline) or template (the template factory)."""
    model: str = "local"
    """The model that generates questions and names tables."""
    options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The method's options, as values or `NAME=VALUE` texts (`-O`); they win over `options_file`'s."""
    options_file: Path | None = None
    max_calls: int | None = Field(None, ge=1, json_schema_extra={"flag": "--max-calls"})
    """Stop after this many model calls (not cached)."""
    no_cache: bool = False
    """Do not use cached model replies."""
    name: str | None = None
    """Benchmark name (default: the output directory's name)."""
    force: bool = False
    """Start over when the directory holds a generation with other settings."""


class AnswersSettings(Settings):
    """Reference answers (Conjecture-Construct-Conclude) for a benchmark's questions, journaled in `out`."""

    benchmark: str
    """Benchmark directory or built-in name."""
    out: Path
    """Benchmark directory to write (continued when it holds one)."""
    model: str = "local"
    """The model that conjectures, constructs and concludes."""
    base: str = "schema"
    """What each question's database copy starts from: schema (no rows) or data (all rows)."""
    limit: int | None = Field(None, ge=1, json_schema_extra={"flag": "--limit"})
    """Only the first N questions."""
    sample_rows: int = Field(2, ge=0, json_schema_extra={"flag": "--sample-rows"})
    """Sample rows per table shown with the schema."""
    max_calls: int | None = Field(None, ge=1, json_schema_extra={"flag": "--max-calls"})
    """Stop after this many model calls (not cached)."""
    no_cache: bool = False
    """Do not use cached model replies."""
    name: str | None = None
    """Benchmark name (default: the output directory's name)."""
    force: bool = False
    """Start over when the directory holds an annotation with other settings."""
