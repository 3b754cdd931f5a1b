"""`biarena import FORMAT PATH -o DIR [-O NAME=VALUE]`: read a published benchmark into the native format; one
command per importer in IMPORTERS."""

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from biarena.benchmarks import IMPORTERS, load_benchmark, open_import, save_benchmark
from biarena.benchmarks.anchor import Now, unanchored
from biarena.benchmarks.native import check_target
from biarena.benchmarks.shown import shown
from biarena.cli.console import err
from biarena.cli.legacy_flags import LEGACY, legacy_flags
from biarena.cli.options import OPTIONS_FILE, flag, gather_options, option_pairs
from biarena.db import DatabasePool, SandboxLimits
from biarena.errors import BiarenaError, FormatError, UsageError
from biarena.metrics.gold_health import GoldHealth, check_gold
from biarena.options import Options, options_model
from biarena.records import Benchmark

app = typer.Typer(help="Import a published benchmark into biarena's native format.", no_args_is_help=True)

OUT = typer.Option(..., "-o", "--out", help="Directory to write the benchmark to (absent or empty).")
FORCE = flag("--force", "Replace an existing benchmark directory (never any other folder).")
NO_GOLD_CHECK = flag("--no-gold-check", "Do not run the gold once imported (it counts the gold that fails).")


def _skip_missing(takes: bool) -> Any:
    """The --skip-missing flag, shown only on the importers that take it."""
    return typer.Option(
        False,
        "--skip-missing",
        metavar="",
        hidden=not takes,
        help="Import only the questions whose database is present and count the others (-O skip_missing=true).",
    )


def _say(line: str) -> None:
    err.print(shown(line, limit=None), markup=False)


@contextmanager
def _one_line() -> Iterator[None]:
    """Errors as one line: a file name or value with a line break is escaped; a file-system failure
    (disk full, permissions) becomes a FormatError rather than a traceback."""
    try:
        yield
    except BiarenaError as error:
        raise type(error)(shown(error, limit=None)) from None
    except OSError as error:
        place = f"{error.filename}: " if error.filename else ""
        raise FormatError(shown(f"{place}{error.strerror or error}", limit=None)) from None


def _save(benchmark: Benchmark, out: Path, force: bool, now: Now) -> None:
    if now == "auto":
        for name in unanchored(benchmark):
            _say(f"warning: now=auto: database '{name}' holds no date or time; its questions have no clock anchor")
    save_benchmark(benchmark, out, overwrite=force)
    languages = sorted({q.language for q in benchmark.questions})
    categories = sorted({lab for q in benchmark.questions for lab in q.labels})
    _say(
        f"imported {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) "
        f"({', '.join(languages)}; {len(categories)} categories) into {out}"
    )
    if benchmark.now is not None:
        _say(f"clock anchored at {benchmark.now.isoformat(sep=' ')}")
    for name, ref in benchmark.databases.items():
        if ref.now is not None:
            _say(f"clock for '{name}' anchored at {ref.now.isoformat(sep=' ')} (latest value of {ref.now_from})")


IMPORT_FLAGS = {
    "--now": "now",
    "--verticals": "verticals",
    "--max-db-size": "max_db_size",
    "--db": "databases",
    "--databases": "databases",
}
"""The importer options `import` once took as flags: still accepted, hidden, as spellings of `-O NAME=VALUE`."""

IMPORT_SWITCHES = {"--no-evidence": "evidence=false"}
"""Flags without a value that stand for an option: `import bird --no-evidence` hides BIRD's evidence."""


def _import(name: str, path: Path, out: Path, force: bool, options: Options, gold_check: bool = True) -> None:
    """Run importer `name` and save what it read (an importer that is a context manager is read inside it)."""
    with open_import(name, path, options) as made:
        benchmark, skipped = made.benchmark, made.skipped  # skipped: CORGI's verticals whose database is unusable
        if skipped and not benchmark.questions:
            reasons = "; ".join(f"{vertical}: {why}" for vertical, why in skipped.items())
            raise FormatError(f"{path}: no vertical could be imported ({reasons})")
        for vertical, why in skipped.items():
            _say(f"warning: vertical '{vertical}' skipped: {why}")
        for note in made.notes:  # Spider 2.0-lite's instances skipped or without gold
            _say(note)
        _save(benchmark, out, force, getattr(options, "now", None))
    if gold_check:
        _check_gold(out)


_QUIET_CHECK = 50
"""Questions whose gold is run without first saying so (more may take a while)."""


def _check_gold(out: Path) -> None:
    """Run the imported benchmark's gold and say how many questions' gold fails to run or is undetermined: those
    are left out of execution accuracy, so a figure over them must say so."""
    try:
        benchmark = load_benchmark(out)
        pool = DatabasePool(benchmark, limits=SandboxLimits())
        if len(benchmark.questions) > _QUIET_CHECK:
            _say(f"running the gold of {len(benchmark.questions)} questions (--no-gold-check skips it)")
        try:
            pool.open_all()
            health = check_gold(benchmark, pool)
        finally:
            pool.close()
    except (BiarenaError, OSError, sqlite3.Error) as error:  # the benchmark is written: a failed check keeps it
        _say(f"gold not checked ({error}): check it with biarena audit {out}")
        return
    _say(gold_health_line(health, f"biarena audit {out}"))


def gold_health_line(health: GoldHealth, audit: str) -> str:
    """`gold: ...` in one line: how many questions' gold runs, and the first failing ones with why."""
    with_gold = health.questions - health.without_gold
    if health.healthy:
        return f"gold: every question's gold runs ({with_gold} with gold" + (
            f", {health.without_gold} without)" if health.without_gold else ")"
        )
    examples = (health.failing + health.undetermined)[:3]
    shown_ones = "; ".join(f"{qid}: {why[:80]}" for qid, why in examples)
    return (
        f"gold: {health.usable} of {with_gold} questions' gold runs ({health.problems()}; e.g. "
        f"{shown_ones}); execution accuracy counts only the {health.usable}: see them with {audit}"
    )


def _help(name: str) -> str:
    """The help of `import NAME`: the first paragraph of the importer's docstring, then the options it takes."""
    importer = IMPORTERS[name]
    about = " ".join((importer.__doc__ or "").split("\n\n")[0].split())
    names = ", ".join(options_model(importer).model_fields)
    return (
        f"{about}\n\nOptions (-O NAME=VALUE): {names}; `biarena describe importer {name}` lists them with their "
        "defaults. -o must be absent or empty."
    )


def _command(name: str) -> Callable[..., None]:
    """The `import NAME` command."""

    def command(
        path: Path = typer.Argument(..., metavar="PATH", help="The published file or folder (see above)."),
        out: Path = OUT,
        option: list[str] | None = option_pairs(f"biarena describe importer {name}"),
        options_file: Path | None = OPTIONS_FILE,
        force: bool = FORCE,
        skip_missing: bool = _skip_missing("skip_missing" in options_model(IMPORTERS[name]).model_fields),
        no_gold_check: bool = NO_GOLD_CHECK,
        legacy: list[str] | None = LEGACY,
    ) -> None:
        with _one_line():
            model = options_model(IMPORTERS[name])
            pairs = [*(legacy or []), *(option or [])]
            if skip_missing:
                if "skip_missing" not in model.model_fields:
                    takers = [n for n in IMPORTERS if "skip_missing" in options_model(IMPORTERS[n]).model_fields]
                    raise UsageError(f"--skip-missing applies to {', '.join(takers)}; not to import {name}")
                pairs.insert(0, "skip_missing=true")
            options = gather_options(model, f"importer '{name}'", pairs, options_file)
            check_target(out, overwrite=force)
            _import(name, path, out, force, options, not no_gold_check)

    return command


for _name in IMPORTERS.loaded():  # a plugin importer that fails to load is reported and left out
    app.command(_name, help=_help(_name), cls=legacy_flags(IMPORT_FLAGS, IMPORT_SWITCHES))(_command(_name))
