"""top_help: `biarena --help` as click lays it out, written from the command table without loading click or Typer.

The layout is click's: the usage line, the help text indented by 2, then the options and the commands as
definition lists (terms padded to the longest, at most 30 columns, then 2 spaces; descriptions wrapped at the help
width). The width is click's too: the terminal's columns, at most 80, less 2, at least 50. A test compares this
text with what the Typer group prints at several widths.
"""

import shutil
import textwrap

from biarena.cli.command_table import COMMAND_TABLE, ROOT_OPTIONS, TOP_HELP

_INDENT = 2
_TERM_MAX = 30
_SPACING = 2


def help_width() -> int:
    """The width click lays help out at: the terminal's columns (or $COLUMNS), at most 80, less 2, at least 50."""
    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def _wrap(text: str, width: int, indent: str = "", subsequent: str = "") -> list[str]:
    """`text` wrapped as click wraps one paragraph."""
    wrapper = textwrap.TextWrapper(width, initial_indent=indent, subsequent_indent=subsequent, replace_whitespace=False)
    return wrapper.wrap(text.expandtabs())


def _definitions(rows: list[tuple[str, str]], width: int) -> list[str]:
    """Rows of a term and its description, laid out as click's definition list at indent 2."""
    first_col = min(max(len(term) for term, _ in rows), _TERM_MAX) + _SPACING
    text_width = max(width - first_col - 2, 10)
    lines: list[str] = []
    for term, description in rows:
        head = " " * _INDENT + term
        if len(term) <= first_col - _SPACING:
            head += " " * (first_col - len(term))
            wrapped = _wrap(description, text_width)
            lines.append(head + (wrapped[0] if wrapped else ""))
        else:
            lines.append(head)
            wrapped = _wrap(description, text_width)
            lines.append(" " * (first_col + _INDENT) + (wrapped[0] if wrapped else ""))
        lines.extend(" " * (first_col + _INDENT) + line for line in wrapped[1:])
    return lines


def top_help(width: int | None = None) -> str:
    """The text `biarena --help` prints, ending in one newline (`width`: the help width, else the terminal's)."""
    width = help_width() if width is None else width
    prefix = "Usage: biarena "
    lines = _wrap("[OPTIONS] COMMAND [ARGS]...", width, prefix, " " * len(prefix))
    lines += ["", *_wrap(TOP_HELP, width, " " * _INDENT, " " * _INDENT)]
    lines += ["", "Options:", *_definitions(list(ROOT_OPTIONS), width)]
    commands = [(name, short.strip()) for name, (_, short) in COMMAND_TABLE.items()]
    lines += ["", "Commands:", *_definitions(commands, width)]
    return "\n".join(lines) + "\n"
