"""Built-in benchmarks by name, built on first use into the cache directory."""

import os
from collections.abc import Callable
from pathlib import Path

from biarena import __version__
from biarena.errors import NotFoundError, did_you_mean
from biarena.records import Benchmark

Builder = Callable[[Path], None]
"""Writes a native benchmark into the given (empty) directory."""

BUILTINS: dict[str, str] = {
    "bis-synth": "biarena.generate.bis_synth:build",
    "corgi-synth": "biarena.generate.corgi_suite:build",
}
"""Built-in benchmarks: name -> "module:function" of its builder (imported only when built)."""


def _builder(name: str) -> Builder:
    import importlib

    module, _, function = BUILTINS[name].partition(":")
    return getattr(importlib.import_module(module), function)


def cache_dir() -> Path:
    """Return biarena's cache directory ($BIARENA_HOME, else ~/.cache/biarena)."""
    home = os.environ.get("BIARENA_HOME")
    base = Path(home) if home else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "biarena"
    return base


def _fingerprint(name: str) -> str:
    """What a built-in's questions depend on: biarena's version and the source of the code that builds them, so a
    changed generator builds afresh instead of serving a stale copy."""
    import hashlib

    import biarena

    digest = hashlib.sha256(__version__.encode())
    root = Path(biarena.__file__).parent
    for package in ("generate", "synth", "records"):
        for path in sorted((root / package).rglob("*")):
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


def build_builtin(name: str, target: Path) -> Path:
    """Build built-in benchmark `name` into `target` atomically."""
    from biarena.benchmarks.staging import staged_directory

    if name not in BUILTINS:
        raise NotFoundError(f"unknown built-in benchmark '{name}'{did_you_mean(name, sorted(BUILTINS))}")
    with staged_directory(target, prefix=f".{name}-") as staging:
        _builder(name)(staging)
    return target
