"""The biarena command line: one file per command; the only place that prints."""

import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from biarena.cli.help_text import unwrap_help
from biarena.errors import BiarenaError
from biarena.registry import Registry
from biarena.version import __version__


def _command(target: str, short_help: str) -> tuple[str, dict[str, str]]:
    """A COMMANDS entry: the command at "module:attribute" and the start of its help."""
    return (target, {"help": short_help})


COMMANDS: Registry[Any] = Registry(
    "command",
    {
        "demo": _command(
            "biarena.cli.demo_cmd:demo",
            "Build the built-in benchmark, run agents with the local model, score them, and write report.html.",
        ),
        "build": _command(
            "biarena.cli.build_cmd:command",
            "Build a built-in benchmark (databases, questions, gold SQL) into a directory.",
        ),
        "import": _command("biarena.cli.import_cmd:app", "Import a published benchmark into biarena's native format."),
        "synth": _command("biarena.cli.synth_cmd:app", "Business database simulator."),
        "suite": _command("biarena.cli.suite_cmd:app", "Build benchmark suites over simulated business databases."),
        "generate": _command("biarena.cli.generate_cmd:app", "Generate benchmark questions."),
        "validate": _command(
            "biarena.cli.validate_cmd:validate",
            "Review the questions nobody has decided on: a accept, e edit, r reject, s skip, q quit.",
        ),
        "audit": _command(
            "biarena.cli.audit_cmd:audit",
            "Check every gold query: failures, empty results, string aggregates, ties, missing ORDER BY, clock.",
        ),
        "load": _command(
            "biarena.cli.load_cmd:load",
            "Load the benchmark's databases into a server, so `biarena run --db-url` can use them.",
        ),
        "run": _command(
            "biarena.cli.run_cmd:command",
            "Run a system over a benchmark; a killed run resumes where it stopped, and a wider selection grows it.",
        ),
        "score": _command(
            "biarena.cli.score_cmd:score",
            "Score a run (execution, SER, execution accuracy, semantic and result "
            "similarity), and judge it with --judge.",
        ),
        "campaign": _command(
            "biarena.cli.campaign_cmd:campaign",
            "Run a campaign: each cell of the plan's matrix is a run file, each scorer on it a work unit.",
        ),
        "merge": _command(
            "biarena.cli.merge_cmd:merge",
            "Join campaign folders into one: their units, runs and results, each answer and result kept once.",
        ),
        "show": _command(
            "biarena.cli.show_cmd:show",
            "Show runs' scores by category, by language and overall, and judges' "
            "scores by question type and dimension.",
        ),
        "export": _command("biarena.cli.export_cmd:export", "Export one row per question of each run."),
        "report": _command(
            "biarena.cli.report_cmd:report",
            "Write a report of runs: summary, arena leaderboard, tables with 95% "
            "intervals, charts, tests, every answer.",
        ),
        "judge": _command("biarena.cli.judge_cmd:app", "Measure how far to trust a judge."),
        "arena": _command(
            "biarena.cli.arena_cmd:app", "Blind pairwise human evaluation of runs, with a Bradley-Terry leaderboard."
        ),
        "describe": _command(
            "biarena.cli.describe_cmd:describe",
            "List the agents, importers, built-in benchmarks or scorers, or the options one takes.",
        ),
    },
)
"""Each command: where it lives (module:attribute, a Typer app or a function) and the start of its help (`help`),
shown in `biarena --help` without importing the command (a test keeps it the start of the command's own help)."""


def load_command(name: str) -> Any:
    """The click command `name`, its module imported now (commands import what they need when they are used)."""
    target = COMMANDS[name]
    if isinstance(target, typer.Typer):
        command = typer.main.get_group(target)
    elif isinstance(target, TyperCommand):  # a command built with its own class (old flags kept as aliases)
        command = target
    else:
        single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    unwrap_help(command)
    return command


class LazyCommands(TyperGroup):
    """The top-level group: a command's module is imported only when that command runs or shows its own help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: dict[str, Any] = {}
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command's name, in the order `--help` shows them."""
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command `cmd_name`: while the top-level help lists commands, a stand-in holding its short help."""
        if cmd_name not in COMMANDS:
            return None
        if self._listing and cmd_name not in self._loaded:
            short = COMMANDS.meta(cmd_name, "help")
            return TyperCommand(cmd_name, help=short, short_help=short)
        if cmd_name not in self._loaded:
            self._loaded[cmd_name] = load_command(cmd_name)
        return self._loaded[cmd_name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The top-level help, listing commands without importing them."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="biarena",
    cls=LazyCommands,
    rich_markup_mode=None,
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
