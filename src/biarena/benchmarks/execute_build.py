"""execute_build: the build workflow (`biarena build NAME -o DIR`, `biarena.build(...)`)."""

from pathlib import Path

from biarena.benchmarks.build_settings import BuildSettings
from biarena.benchmarks.builtin import builtin_builder
from biarena.benchmarks.native import load_benchmark
from biarena.benchmarks.options_file import read_options_file
from biarena.errors import FormatError
from biarena.events import EventHandler, Message, Stage, ignore
from biarena.options import options_model, parse_option_pairs, validate_options


def empty_target(out: Path) -> None:
    """Refuse an output that exists and is not an empty directory."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        what = "it already exists and is not empty" if out.is_dir() else "it is a file"
        raise FormatError(f"{out}: not an empty directory: {what} (choose another -o)")


def execute_build(settings: BuildSettings, on_event: EventHandler = ignore) -> Path:
    """Build the built-in benchmark into `settings.out` and return the directory, reporting messages and a
    `Stage` per step through `on_event`."""
    name, out = settings.name, settings.out
    builder = builtin_builder(name)
    model = options_model(builder)
    values = read_options_file(settings.options_file) if settings.options_file is not None else {}
    given = settings.options
    values.update(parse_option_pairs(model, given, "-O") if isinstance(given, list) else dict(given))
    options = validate_options(model, values, f"benchmark '{name}'", "-O")
    empty_target(out)
    on_event(Message(f"building {name} into {out} ..."))
    builder(out, options, on_progress=lambda done, total, item, stage: on_event(Stage(done, total, item, stage)))
    benchmark = load_benchmark(out)
    on_event(
        Message(
            f"built {name}: {len(benchmark.questions)} questions over {len(benchmark.databases)} database(s) in {out}"
        )
    )
    return out
