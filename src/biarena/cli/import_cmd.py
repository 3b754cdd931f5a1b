"""`biarena import FORMAT PATH -o DIR [-O NAME=VALUE]`: read a published benchmark into the native format; one
command per importer in IMPORTERS."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from biarena.benchmarks import IMPORTERS
from biarena.benchmarks.execute_import import execute_import
from biarena.benchmarks.import_settings import ImportSettings
from biarena.cli.console import err
from biarena.cli.legacy_flags import LEGACY, legacy_flags
from biarena.cli.options import OPTIONS_FILE, flag, option_pairs
from biarena.cli.settings_from import settings_from
from biarena.events import Message
from biarena.metrics.imported_gold import check_imported_gold
from biarena.options import options_model

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


def _say(event: object) -> None:
    if isinstance(event, Message):
        err.print(event.text, markup=False)


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
        settings = settings_from(
            ImportSettings,
            locals(),
            importer=name,
            options=[*(legacy or []), *(option or [])],
            gold_check=not no_gold_check,
        )
        execute_import(settings, _say)
        if settings.gold_check:
            check_imported_gold(out, _say)

    return command


for _name in IMPORTERS.loaded():  # a plugin importer that fails to load is reported and left out
    app.command(_name, help=_help(_name), cls=legacy_flags(IMPORT_FLAGS, IMPORT_SWITCHES))(_command(_name))
