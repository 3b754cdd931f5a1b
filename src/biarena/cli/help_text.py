"""Help text written as wrapped docstrings, shown wrapped by the terminal: the line breaks inside a paragraph go.

Typer's rich help keeps every line break of a docstring, so a paragraph wrapped at 120 columns in the source
would break mid-sentence on an 80-column terminal and leave ragged short lines on a wide one."""

import inspect
from typing import Any

BULLETS = ("- ", "* ", "• ")
"""A line starting with one of these starts a list item: it keeps its own line."""


def unwrap_paragraphs(text: str) -> str:
    """`text` with each paragraph on one line (list items each on theirs); a paragraph starting with click's `\\b`
    (keep as written) and anything after a `\\f` (hidden from help) are left as they are."""
    shown, cut, hidden = text.partition("\f")
    paragraphs = []
    for paragraph in inspect.cleandoc(shown).split("\n\n"):
        if paragraph.startswith("\b"):
            paragraphs.append(paragraph)
            continue
        lines: list[str] = []
        for line in paragraph.splitlines():
            stripped = line.strip()
            if lines and not stripped.startswith(BULLETS):
                lines[-1] = f"{lines[-1]} {stripped}"
            else:
                lines.append(stripped)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs) + cut + hidden


def unwrap_help(command: Any) -> None:
    """Unwrap the help of a click command, its options and, for a group, every subcommand's, in place."""
    if command.help:
        command.help = unwrap_paragraphs(command.help)
    for param in getattr(command, "params", []):
        if getattr(param, "help", None):
            param.help = unwrap_paragraphs(param.help)
    for sub in getattr(command, "commands", {}).values():
        unwrap_help(sub)
