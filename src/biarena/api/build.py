"""build: a built-in benchmark written into a directory, as `biarena build NAME -o DIR`."""

from pathlib import Path
from typing import Any

from biarena.api.messages import print_messages


def build(name: str, out: str | Path, **options: Any) -> Path:
    """Build the built-in benchmark `name` (`bis-synth`, `corgi-synth`) into `out`; return the directory.

    `options` are the benchmark's own (`seed=1`, `scale=0.5` for corgi-synth), as `-O NAME=VALUE` takes them;
    `biarena describe benchmark NAME` lists them (a name it does not take is refused, with the closest one).
    `out` must not exist or be empty (FormatError otherwise)."""
    from biarena.benchmarks.build_settings import BuildSettings
    from biarena.benchmarks.execute_build import execute_build

    return execute_build(BuildSettings(name=name, out=Path(out), options=options), print_messages)
