"""build: a built-in benchmark written into a directory, as `biarena build NAME -o DIR`."""

from pathlib import Path
from typing import Any

from biarena.api.command_call import call_command, option_pairs


def build(name: str, out: str | Path, **options: Any) -> Path:
    """Build the built-in benchmark `name` (`bis-synth`, `corgi-synth`) into `out`; return the directory.

    `options` are the benchmark's own (`seed=1`, `scale=0.5` for corgi-synth), as `-O NAME=VALUE` takes them;
    `biarena describe benchmark NAME` lists them. `out` must not exist or be empty (FormatError otherwise)."""
    from biarena.cli.build_cmd import build as build_command

    call_command(build_command, name=name, out=Path(out), option=option_pairs(options))
    return Path(out)
