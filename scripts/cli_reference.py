"""Writes docs/cli.md, the CLI reference, from every command's own --help; `--check` exits 1 when the file is stale.

    python scripts/cli_reference.py            # rewrite docs/cli.md
    python scripts/cli_reference.py --check    # exit 1 (saying so) when docs/cli.md differs from the commands' help
"""

import argparse
import os
import sys
from pathlib import Path
from typing import Any

# Plain click help (no boxes), as wide as a docs page: the same text on every machine.
os.environ["TYPER_USE_RICH"] = "0"


from biarena.cli import COMMANDS, app, load_command

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
WIDTH = 100


def context(command: Any, name: str, parent: Any = None) -> Any:
    """A click context for `command` (typer's own click), WIDTH columns wide."""
    return command.context_class(command, info_name=name, parent=parent, terminal_width=WIDTH, max_content_width=WIDTH)


def sections(command: Any, path: list[str], parent: Any) -> list[str]:
    """The command's section, then its subcommands' (for a group), in the order its help lists them."""
    ctx = context(command, path[-1], parent)
    level = "#" * min(len(path) + 1, 4)
    out = [f"{level} {' '.join(path)}\n\n```text\n{command.get_help(ctx).rstrip()}\n```\n"]
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += sections(sub, [*path, name], ctx)
    return out


def reference() -> str:
    """The whole reference page."""
    root = context(typer_root(), "biarena")
    parts = [
        "# CLI reference\n\n"
        "Every command's own `--help`, written by `python scripts/cli_reference.py` (a test fails when this page is\n"
        "stale). [Commands at a glance](commands.md) says what each is for.\n",
        f"## biarena\n\n```text\n{root.command.get_help(root).rstrip()}\n```\n",
    ]
    for name in COMMANDS:
        parts += sections(load_command(name), ["biarena", name], root)
    return "\n".join(parts)


def typer_root() -> Any:
    """The top-level click group of the `biarena` command."""
    import typer

    return typer.main.get_command(app)


def main() -> int:
    """Write the reference, or with --check compare it with the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/cli.md is stale; write nothing")
    text = reference()
    if parser.parse_args().check:
        if not REFERENCE.is_file() or REFERENCE.read_text(encoding="utf-8") != text:
            print(f"{REFERENCE} is stale: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text, encoding="utf-8")
    print(f"wrote {REFERENCE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
