"""The Typer group of every command: each command's module imported only when that command runs or shows its help."""

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from biarena.cli.command_table import COMMAND_TABLE, ROOT_OPTIONS, TOP_HELP
from biarena.cli.help_text import unwrap_help
from biarena.registry import Registry
from biarena.version import __version__

COMMANDS: Registry[Any] = Registry(
    "command", {name: (target, {"help": short}) for name, (target, short) in COMMAND_TABLE.items()}
)
"""Each command: where it lives (module:attribute, a Typer app or a function) and the start of its help (`help`)."""


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
    help=TOP_HELP,
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
        False, "--version", metavar="", callback=_print_version, is_eager=True, help=dict(ROOT_OPTIONS)["--version"]
    ),
) -> None:
    """Benchmark, judge and rank AI data analysts on SQL databases."""
