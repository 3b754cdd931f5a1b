"""execute_import: the import workflow (`biarena import FORMAT PATH -o DIR`): a published benchmark read by its
importer and saved in the native format, reported through events."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from biarena.benchmarks.anchor import Now, unanchored
from biarena.benchmarks.import_settings import ImportSettings
from biarena.benchmarks.imported import open_import
from biarena.benchmarks.native import check_target, save_benchmark
from biarena.benchmarks.options_file import read_options_file
from biarena.benchmarks.shown import shown
from biarena.errors import BiarenaError, FormatError, UsageError
from biarena.events import EventHandler, Message, ignore
from biarena.options import Options, options_model, parse_option_pairs, validate_options
from biarena.records import Benchmark


def importer_options(settings: ImportSettings) -> Options:
    """The importer's options: the options file's, then `skip_missing`, then the settings' options over them."""
    from biarena.benchmarks import IMPORTERS

    name = settings.importer
    model = options_model(IMPORTERS[name])
    values = read_options_file(settings.options_file) if settings.options_file is not None else {}
    if settings.skip_missing:
        if "skip_missing" not in model.model_fields:
            takers = [n for n in IMPORTERS if "skip_missing" in options_model(IMPORTERS[n]).model_fields]
            raise UsageError(f"--skip-missing applies to {', '.join(takers)}; not to import {name}")
        values["skip_missing"] = True
    given = settings.options
    values.update(parse_option_pairs(model, given, "-O") if isinstance(given, list) else dict(given))
    return validate_options(model, values, f"importer '{name}'", "-O")


def execute_import(settings: ImportSettings, on_event: EventHandler = ignore) -> Path:
    """Import the published benchmark at `settings.path` into `settings.out` and return it; warnings and what was
    imported are messages through `on_event`. Errors are one line (a file-system failure is a FormatError).

    The gold check (`settings.gold_check`) is not done here: it runs SQL, a layer above (`biarena.metrics`)."""
    from biarena.benchmarks import IMPORTERS

    say = _sayer(on_event)
    with one_line():
        if settings.importer not in IMPORTERS:
            from biarena.errors import NotFoundError, did_you_mean

            known = sorted(IMPORTERS)
            raise NotFoundError(
                f"unknown importer '{settings.importer}'{did_you_mean(settings.importer, known)} "
                f"(known: {', '.join(known)})"
            )
        options = importer_options(settings)
        check_target(settings.out, overwrite=settings.force)
        with open_import(settings.importer, settings.path, options) as made:
            benchmark, skipped = made.benchmark, made.skipped  # skipped: CORGI's verticals whose database is unusable
            if skipped and not benchmark.questions:
                reasons = "; ".join(f"{vertical}: {why}" for vertical, why in skipped.items())
                raise FormatError(f"{settings.path}: no vertical could be imported ({reasons})")
            for vertical, why in skipped.items():
                say(f"warning: vertical '{vertical}' skipped: {why}")
            for note in made.notes:  # Spider 2.0-lite's instances skipped or without gold
                say(note)
            _save(benchmark, settings.out, settings.force, getattr(options, "now", None), say)
    return settings.out


def _sayer(on_event: EventHandler) -> Callable[[str], None]:
    """A function that reports a line as a Message, its control characters shown as escapes."""

    def say(line: str) -> None:
        on_event(Message(shown(line, limit=None)))

    return say


@contextmanager
def one_line() -> Iterator[None]:
    """Errors as one line: a file name or value with a line break is escaped; a file-system failure
    (disk full, permissions) becomes a FormatError rather than a traceback."""
    try:
        yield
    except BiarenaError as error:
        raise type(error)(shown(error, limit=None)) from None
    except OSError as error:
        place = f"{error.filename}: " if error.filename else ""
        raise FormatError(shown(f"{place}{error.strerror or error}", limit=None)) from None


def _save(benchmark: Benchmark, out: Path, force: bool, now: Now, say: Callable[[str], None]) -> None:
    if now == "auto":
        for name in unanchored(benchmark):
            say(f"warning: now=auto: database '{name}' holds no date or time; its questions have no clock anchor")
    save_benchmark(benchmark, out, overwrite=force)
    languages = sorted({q.language for q in benchmark.questions})
    categories = sorted({lab for q in benchmark.questions for lab in q.labels})
    say(
        f"imported {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) "
        f"({', '.join(languages)}; {len(categories)} categories) into {out}"
    )
    if benchmark.now is not None:
        say(f"clock anchored at {benchmark.now.isoformat(sep=' ')}")
    for name, ref in benchmark.databases.items():
        if ref.now is not None:
            say(f"clock for '{name}' anchored at {ref.now.isoformat(sep=' ')} (latest value of {ref.now_from})")
