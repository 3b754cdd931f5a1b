"""Built-in benchmarks by name, built on first use into the cache directory."""

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from biarena import __version__
from biarena.errors import NotFoundError, did_you_mean
from biarena.options import Options, takes
from biarena.records import Benchmark

Progress = Callable[[int, int, str, str], None]
"""Told (finished, total, item, what is happening) as a build goes."""


def _generator(where: str) -> Callable[..., Any]:
    """The function at "module:function", imported now: generators sit above this package and load only to build."""
    import importlib

    module, _, function = where.partition(":")
    return getattr(importlib.import_module(module), function)


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
    chosen = BisSynthOptions.resolve(options, values, "benchmark 'bis-synth'")
    _generator("biarena.generate.bis_synth:build")(target, seed=chosen.seed)


@takes(CorgiSynthOptions)
def build_corgi_synth(
    target: Path, options: CorgiSynthOptions | None = None, *, on_progress: Progress | None = None, **values: Any
) -> None:
    """The CORGI suite over simulated business databases, one vertical after another."""
    chosen = CorgiSynthOptions.resolve(options, values, "benchmark 'corgi-synth'")
    build = _generator("biarena.generate.corgi_suite:build")
    build(target, scale=chosen.scale, seed=chosen.seed, on_progress=on_progress)


Builder = Callable[..., None]
"""Writes a native benchmark into the given (empty) directory: `(target, options=None, *, on_progress=None)`."""

BUILTINS: dict[str, Builder] = {
    "bis-synth": build_bis_synth,
    "corgi-synth": build_corgi_synth,
}
"""Built-in benchmarks by name; a builder's `Options` model declares what it takes (the generator it calls is
imported only when it builds)."""


def builtin_builder(name: str) -> Builder:
    """The builder of built-in benchmark `name` (NotFoundError, with a suggestion, for an unknown name)."""
    if name not in BUILTINS:
        choices = sorted(BUILTINS)
        known = ", ".join(choices)
        raise NotFoundError(f"unknown built-in benchmark '{name}'{did_you_mean(name, choices)} (known: {known})")
    return BUILTINS[name]


def cache_dir() -> Path:
    """Return biarena's cache directory ($BIARENA_HOME, else ~/.cache/biarena)."""
    home = os.environ.get("BIARENA_HOME")
    base = Path(home) if home else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "biarena"
    return base


def _fingerprint(name: str) -> str:
    """What a built-in's questions depend on: biarena's version and the source of the code that builds them (its
    default options included), so a changed generator builds afresh instead of serving a stale copy."""
    import hashlib

    import biarena

    digest = hashlib.sha256(__version__.encode())
    root = Path(biarena.__file__).parent
    for part in ("generate", "synth", "records", "benchmarks/builtin.py"):
        for path in sorted((root / part).rglob("*")) if (root / part).is_dir() else [root / part]:
            if path.suffix in (".py", ".yaml", ".yml", ".txt", ".json") and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return f"{name}-{__version__}-{digest.hexdigest()[:12]}"


def resolve_benchmark(spec: str | Path) -> Benchmark:
    """Load a benchmark from a directory, or build/load a built-in one by name."""
    from biarena.benchmarks.native import BENCHMARK_FILE, load_benchmark

    path = Path(spec)
    if path.is_dir():
        return load_benchmark(path)
    name = str(spec)
    if name in BUILTINS:
        target = cache_dir() / "benchmarks" / _fingerprint(name)
        if not (target / BENCHMARK_FILE).is_file():
            build_builtin(name, target)
        return load_benchmark(target)
    choices = sorted(BUILTINS)
    listing = f" (built-ins: {', '.join(choices)})" if choices else " (no built-in benchmarks are installed)"
    raise NotFoundError(
        f"no benchmark directory or built-in benchmark named '{name}'{did_you_mean(name, choices)}{listing}"
    )


def build_builtin(name: str, target: Path, options: Options | None = None) -> Path:
    """Build built-in benchmark `name` (with `options`, else its defaults) into `target` atomically."""
    from biarena.benchmarks.staging import staged_directory

    builder = builtin_builder(name)
    with staged_directory(target, prefix=f".{name}-") as staging:
        builder(staging, options)
    return target
