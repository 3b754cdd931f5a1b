"""Built-in benchmarks by name, built on first use into the cache directory."""

import os
from collections.abc import Callable
from pathlib import Path

from biarena.errors import NotFoundError, did_you_mean
from biarena.options import Options
from biarena.records import Benchmark
from biarena.registry import BUILT_IN, Registry
from biarena.version import __version__

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""The folder of the biarena package, whose sources a built-in's fingerprint reads."""

Progress = Callable[[int, int, str, str], None]
"""Told (finished, total, item, what is happening) as a build goes."""


Builder = Callable[..., None]
"""Writes a native benchmark into the given (empty) directory: `(target, options=None, *, on_progress=None)`."""

BUILTINS: Registry[Builder] = Registry(
    "built-in benchmark",
    {
        "bis-synth": "biarena.generate.builtins:build_bis_synth",
        "corgi-synth": "biarena.generate.builtins:build_corgi_synth",
    },
    group="biarena.benchmarks",
)
"""Built-in benchmarks by name, each builder imported only when it builds (plugins add theirs through the
`biarena.benchmarks` entry points); a builder's `Options` model declares what it takes."""


def builtin_builder(name: str) -> Builder:
    """The builder of built-in benchmark `name` (NotFoundError, with a suggestion, for an unknown name)."""
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

    digest = hashlib.sha256(__version__.encode())
    root = PACKAGE_ROOT
    entry = BUILTINS.entry(name)
    if entry.package != BUILT_IN:  # a plugin's benchmark: its package's name and version too
        from importlib.metadata import PackageNotFoundError, version

        try:
            digest.update(f"{entry.package} {version(entry.package)} {entry.target}".encode())
        except PackageNotFoundError:
            digest.update(f"{entry.package} {entry.target}".encode())
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
