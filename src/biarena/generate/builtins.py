"""The builders of the built-in benchmarks (BUILTINS names each by "module:function"), over the generators here."""

from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.benchmarks.builtin import Progress
from biarena.options import Options, takes


class BisSynthOptions(Options):
    """Options of the bis-synth benchmark."""

    seed: int = 0
    """Random seed: the same seed gives the same benchmark."""


class CorgiSynthOptions(Options):
    """Options of the corgi-synth benchmark."""

    scale: float = Field(1.0, ge=0.01)
    """Database size: each vertical's row counts times this."""
    seed: int = 0
    """Random seed: the same seed and scale give the same benchmark."""


@takes(BisSynthOptions)
def build_bis_synth(
    target: Path, options: BisSynthOptions | None = None, *, on_progress: Progress | None = None, **values: Any
) -> None:
    """BIS-style questions in the 9 BIS categories plus language, English and Chinese, over two databases."""
    from biarena.generate.bis_synth import build

    chosen = BisSynthOptions.resolve(options, values, "benchmark 'bis-synth'")
    build(target, seed=chosen.seed)


@takes(CorgiSynthOptions)
def build_corgi_synth(
    target: Path, options: CorgiSynthOptions | None = None, *, on_progress: Progress | None = None, **values: Any
) -> None:
    """The CORGI suite over simulated business databases, one vertical after another."""
    from biarena.generate.corgi_suite import build

    chosen = CorgiSynthOptions.resolve(options, values, "benchmark 'corgi-synth'")
    build(target, scale=chosen.scale, seed=chosen.seed, on_progress=on_progress)
