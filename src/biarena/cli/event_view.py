"""EventView: what a run's and a scoring pass's views share: one event dispatch, one progress bar, one notice line.

A view renders a workflow's events on stderr: a progress bar on a terminal (its counters named by the subclass),
a line per item in a log, notices (a model waiting, retrying) on the bar or as lines, and the line that says how to
resume after an outage. Close it (`close`) when the workflow returns.
"""

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Column
from rich.text import Text

from biarena.cli.console import err
from biarena.cli.notice_line import notice_listener
from biarena.events import Message
from biarena.llm.notices import Notice


def say(text: str) -> None:
    """Print a message line as it is (names and errors may hold `[` and `]`, which are not markup here)."""
    err.print(text, markup=False, highlight=False)


class EventView:
    """The shared part of a workflow's view; a subclass names its event types, its bar's counters and its
    resume command, and shows progress and the start in its own way."""

    progress_type: ClassVar[type]
    started_type: ClassVar[type]
    ended_type: ClassVar[type]
    stopped_type: ClassVar[type]
    counters: ClassVar[str]
    """The bar's text after the count, with `{task.fields[NAME]}` for each counter."""
    narrow_counters: ClassVar[str | None] = None
    """The counters that matter most, for a terminal narrower than `WIDE` columns (None: `counters`, cut to fit)."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.task: Any = None
        self.notice = notice_listener(err.is_terminal, self._waiting, say)

    def __call__(self, event: Any) -> None:
        """Show one event."""
        if isinstance(event, Message):
            say(event.text)
        elif isinstance(event, self.progress_type):
            self._progress(event)
        elif isinstance(event, Notice):
            self.notice(event)
        elif isinstance(event, self.started_type):
            self._start(event)
        elif isinstance(event, self.ended_type):
            self.close()
        elif isinstance(event, self.stopped_type):
            say(event.line(self.resume_command()))

    def close(self) -> None:
        """Take the progress bar off the screen (kept as its last state)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def resume_command(self) -> str:
        """The command line that picks the work up after an outage."""
        raise NotImplementedError

    def _open_bar(self, description: str, total: int | None, **fields: Any) -> None:
        """Start the progress bar (shown on a terminal only) with the subclass's counters at their first values."""
        self.bar = NoticeBar(self.counters, self.narrow_counters, console=err, disable=not err.is_terminal)
        self.bar.start()
        self.task = self.bar.add_task(description, total=total, **fields)

    def _update(self, **fields: Any) -> None:
        """Move the bar (a notice shown under it is cleared)."""
        if self.bar is not None:
            self.bar.notice = ""
            self.bar.update(self.task, **fields)

    def _waiting(self, text: str) -> None:
        if self.bar is not None:
            self.bar.notice = text
            self.bar.refresh()


WIDE = 132
"""Columns from which the bar shows every counter and the bar itself at full length."""


class NoticeBar(Progress):
    """A progress bar on one line that fits the terminal (fewer counters and a shorter bar under `WIDE` columns),
    and the latest notice (a wait, a reply being read or written) on a line of its own under it."""

    def __init__(self, counters: str, narrow_counters: str | None = None, **kwargs: Any) -> None:
        self.wide = self._columns(counters, 40)
        self.narrow = self._columns(narrow_counters or counters, 10)
        self.notice = ""
        """The line under the bar; empty: none."""
        super().__init__(*self.wide, **kwargs)

    @staticmethod
    def _columns(counters: str, bar_width: int) -> tuple[ProgressColumn, ...]:
        cut = Column(no_wrap=True, overflow="ellipsis")  # a column that does not fit is cut, never wrapped
        return (
            TextColumn("{task.description}", markup=False, style="bold", table_column=cut),
            BarColumn(bar_width=bar_width),
            MofNCompleteColumn(),
            TextColumn(counters, markup=False, table_column=Column(no_wrap=True, overflow="ellipsis")),
            TimeRemainingColumn(),
        )

    def get_renderables(self) -> Iterable[RenderableType]:
        """The bar's line, then the notice's (cut at the terminal's width rather than wrapped)."""
        live = getattr(self, "live", None)  # None while Progress is being made: it renders once before
        self.columns = self.narrow if live is not None and live.console.width < WIDE else self.wide
        yield self.make_tasks_table(self.tasks)
        if self.notice:
            yield Text(self.notice, style="yellow", no_wrap=True, overflow="ellipsis")

    def _start(self, event: Any) -> None:
        raise NotImplementedError

    def _progress(self, event: Any) -> None:
        raise NotImplementedError
