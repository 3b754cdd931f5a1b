"""The biarena command line: one file per command; the only place that prints.

`main` answers `biarena --version` and `biarena --help` from plain data (`command_table`), and loads the Typer
group (`group`) for everything else, so the commonest start-ups do not pay for the command-line framework.
"""

import os
import sys
from typing import Any

from biarena.version import __version__

_GROUP_NAMES = frozenset({"app", "COMMANDS", "load_command", "LazyCommands"})


def __getattr__(name: str) -> Any:
    """`app`, `COMMANDS`, `load_command` and `LazyCommands` from `biarena.cli.group`, imported on first use."""
    if name in _GROUP_NAMES:
        from biarena.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def one_line(message: str) -> str:
    """A message as one printable line: control characters (newlines included) shown as escapes."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in message)


def main() -> None:
    """Entry point: user errors become one line on stderr and exit code 2 (usage errors too)."""
    words = sys.argv[1:]
    if words == ["--version"]:
        print(f"biarena {__version__}")
        return
    # Under `python -m biarena` the usage line names the interpreter too, as click words it.
    if words == ["--help"] and os.path.basename(sys.argv[0]) == "biarena":
        from biarena.cli.top_help import top_help

        sys.stdout.write(top_help())
        return
    from biarena.cli.group import app
    from biarena.cli.warning_lines import warning_lines
    from biarena.errors import BiarenaError

    try:
        with warning_lines():
            app()
    except BiarenaError as error:
        print(f"error: {one_line(str(error))}", file=sys.stderr)
        sys.exit(2)
