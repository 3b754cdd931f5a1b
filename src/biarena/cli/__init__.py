"""The biarena command line: one file per command; the only place that prints."""

import sys

import typer

from biarena import __version__
from biarena.cli import (
    arena_cmd,
    audit_cmd,
    build_cmd,
    demo_cmd,
    export_cmd,
    generate_cmd,
    import_cmd,
    judge_cmd,
    load_cmd,
    report_cmd,
    run_cmd,
    score_cmd,
    show_cmd,
    suite_cmd,
    synth_cmd,
    validate_cmd,
)
from biarena.errors import BiarenaError

app = typer.Typer(
    name="biarena",
    help="Benchmark, judge and rank AI data analysts on SQL databases.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        print(f"biarena {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", metavar="", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Benchmark, judge and rank AI data analysts on SQL databases."""


app.add_typer(import_cmd.app, name="import")
app.add_typer(generate_cmd.app, name="generate")
app.add_typer(synth_cmd.app, name="synth")
app.add_typer(suite_cmd.app, name="suite")
app.add_typer(judge_cmd.app, name="judge")
app.add_typer(arena_cmd.app, name="arena")
app.command("demo")(demo_cmd.demo)
app.command("report")(report_cmd.report)
app.command("build")(build_cmd.build)
app.command("audit")(audit_cmd.audit)
app.command("load")(load_cmd.load)
app.command("run")(run_cmd.run)
app.command("score")(score_cmd.score)
app.command("show")(show_cmd.show)
app.command("export")(export_cmd.export)
app.command("validate")(validate_cmd.validate)


def one_line(message: str) -> str:
    """A message as one printable line: control characters (newlines included) shown as escapes."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in message)


def main() -> None:
    """Entry point: user errors become one line on stderr and exit code 2 (usage errors too)."""
    try:
        app()
    except BiarenaError as error:
        print(f"error: {one_line(str(error))}", file=sys.stderr)
        sys.exit(2)
