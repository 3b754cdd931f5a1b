"""load_benchmark: a benchmark read and validated, named as the command line names one."""

from pathlib import Path

from biarena.records import Benchmark


def load_benchmark(benchmark: str | Path) -> Benchmark:
    """The benchmark in a directory, or a built-in one by name (built on first use into the cache), validated.

    A problem names the file, line and field (FormatError); an unknown name says what exists (NotFoundError)."""
    from biarena.benchmarks import resolve_benchmark

    return resolve_benchmark(str(benchmark))
