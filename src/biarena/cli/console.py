"""Shared consoles: results to stdout, messages and progress to stderr; tables printed whole."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from biarena.events import Message

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

_UNBOUNDED = 1_000_000

__all__ = ["err", "escape", "fmt", "new_table", "note", "out", "print_table", "row", "show_message", "stage_progress"]


def note(text: str) -> None:
    """A line on stderr, printed as it is (never read as markup)."""
    err.print(Text(text))


def show_message(event: object) -> None:
    """A workflow's `Message` events as lines on stderr; it shows no other event."""
    if isinstance(event, Message):
        note(event.text)


def fmt(value: float | None, digits: int = 3) -> str:
    """Format a score for a table ('-' when absent)."""
    return "-" if value is None else f"{value:.{digits}f}"


def new_table(title: str | None, columns: list[tuple[str, str]]) -> Table:
    """A table whose cells are never cut. Per column, its header and kind: `name` and `number` stay on one line
    (numbers right-aligned); `text` wraps at spaces."""
    table = Table(title=Text(title) if title else None, title_justify="left")
    for header, kind in columns:
        if kind == "text":
            table.add_column(Text(header), overflow="fold")
        else:
            table.add_column(Text(header), justify="right" if kind == "number" else "left", no_wrap=True)
    return table


def row(table: Table, *cells: object) -> None:
    """Add a row of plain text cells (never read as markup, so `[/x]` in a name prints as itself)."""
    table.add_row(*(cell if isinstance(cell, Text) else Text(str(cell)) for cell in cells))


def _fit_columns(console: Console, table: Table) -> int:
    """Fix the widths of wrapping columns so that none is narrower than its longest word (rich alone would fold
    words when it shrinks a table); return the table's width, at least the console's."""
    options = console.options.update(width=_UNBOUNDED)
    sizes = []
    for column in table.columns:
        found = [Measurement.get(console, options, cell) for cell in [column.header, *column.cells]]
        sizes.append((max(m.minimum for m in found), max(m.maximum for m in found)))
    overhead = 3 * len(table.columns) + 1  # padding on both sides and the vertical rules
    pairs = list(zip(table.columns, sizes, strict=True))
    fixed = sum(most for column, (_, most) in pairs if column.no_wrap)
    wrapping = [(column, least, most) for column, (least, most) in pairs if not column.no_wrap]
    room = console.width - overhead - fixed - sum(least for _, least, _ in wrapping)
    slack = sum(most - least for _, least, most in wrapping)
    for column, least, most in wrapping:
        share = (most - least) * max(0, room) // slack if slack else 0
        column.width = min(most, least + share)
    return max(console.width, overhead + fixed + sum(c.width or 0 for c, _, _ in wrapping))


def print_table(table: Table, console: Console = out) -> None:
    """Print a table whole: at its natural width without a terminal; in one, wrapping text only at spaces and
    growing wider than the screen rather than cutting a word or a number."""
    natural = Measurement.get(console, console.options.update(width=_UNBOUNDED), table).maximum
    if console.is_terminal and natural <= console.width:
        console.print(table)
        return
    width = _fit_columns(console, table) if console.is_terminal else natural
    Console(
        file=console.file,
        width=width,
        height=console.height,  # rich ignores a width given alone on a dumb terminal
        force_terminal=console.is_terminal,
        color_system=console.color_system if console.is_terminal else None,
        highlight=False,
        soft_wrap=True,
    ).print(table)


@contextmanager
def stage_progress(title: str, total: int) -> Iterator[Callable[[int, int, str, str], None]]:
    """Yield a callback (finished, total, item, what is happening): a bar on a terminal, one line per stage in a log."""
    if not err.is_terminal:

        def line(done: int, count: int, item: str, stage: str) -> None:
            err.print(Text(f"  [{done}/{count}] {item}: {stage}"))

        yield line
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    ) as bar:
        task = bar.add_task(escape(title), total=total)

        def update(done: int, count: int, item: str, stage: str) -> None:
            bar.update(task, completed=done, total=count, description=escape(f"{title}: {item}: {stage}"))

        yield update
