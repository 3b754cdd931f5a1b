"""BuildSettings: what `biarena build` and `biarena.build(...)` ask of a built-in benchmark's build."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.settings import Settings


class BuildSettings(Settings):
    """A built-in benchmark written into a directory."""

    name: str
    """The built-in benchmark (`biarena describe benchmark` lists them)."""
    out: Path
    """Directory to write (must not exist or be empty)."""
    options: dict[str, Any] | list[str] = Field(default_factory=dict)
    """The benchmark's own options, as values or `NAME=VALUE` texts (`-O`); they win over `options_file`'s."""
    options_file: Path | None = None
