"""RunView: how the command line shows a run's events: a progress bar on a terminal, a line per answer in a log."""

import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.cli.console import err
from biarena.cli.notice_line import notice_listener
from biarena.events import Message
from biarena.llm.notices import Notice
from biarena.runner.events import RunEnded, RunStarted, RunStopped
from biarena.runner.run import RunProgress


def say(text: str) -> None:
    """Print a message line as it is (names and errors may hold `[` and `]`, which are not markup here)."""
    err.print(text, markup=False, highlight=False)


def resume_command() -> str:
    """The command line that resumes this run after an outage: the same one, asking again what failed."""
    args = sys.argv[1:]
    return shlex.join(["biarena", *args, *([] if "--retry-errors" in args else ["--retry-errors"])])


class RunView:
    """Renders a run's events on stderr; `on_answer`, when given, is called with each answer instead of the
    one-line log (the demo prints answers its own way). Close it (`close`) when the run returns."""

    def __init__(self, on_answer: Callable[[RunProgress], None] | None = None) -> None:
        self.on_answer = on_answer
        self.bar: Progress | None = None
        self.task: Any = None
        self.started = 0.0
        self.answered = 0
        self.tries = 1
        self.notice = notice_listener(err.is_terminal, self._waiting, say)

    def __call__(self, event: Any) -> None:
        """Show one event."""
        if isinstance(event, Message):
            say(event.text)
        elif isinstance(event, RunProgress):
            self._progress(event)
        elif isinstance(event, Notice):
            self.notice(event)
        elif isinstance(event, RunStarted):
            self._start(event)
        elif isinstance(event, RunEnded):
            self.close()
        elif isinstance(event, RunStopped):
            say(event.line(resume_command()))

    def close(self) -> None:
        """Take the progress bar off the screen (kept as its last state)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def _start(self, event: RunStarted) -> None:
        self.started, self.answered, self.tries = time.monotonic(), event.completed, event.tries
        self.bar = Progress(
            TextColumn("{task.description}", markup=False, style="bold"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "ran {task.fields[ran]} · SQL failed {task.fields[sql_failed]} · no answer {task.fields[no_answer]} · "
                "calls {task.fields[calls]} · tokens {task.fields[tokens]}",
                markup=False,
            ),
            TimeRemainingColumn(),
            TextColumn("{task.fields[waiting]}", markup=False, style="yellow"),
            console=err,
            disable=not err.is_terminal,
        )
        self.bar.start()
        self.task = self.bar.add_task(
            event.name,
            total=event.total,
            completed=event.completed,
            ran=0,
            sql_failed=0,
            no_answer=0,
            calls=0,
            tokens=0,
            waiting="",
        )

    def _waiting(self, text: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, waiting=text)

    def _progress(self, p: RunProgress) -> None:
        if self.bar is not None:
            self.bar.update(
                self.task,
                waiting="",
                completed=p.done,
                ran=p.counts.ran,
                sql_failed=p.counts.sql_failed,
                no_answer=p.counts.no_answer,
                calls=p.usage.calls,
                tokens=p.usage.prompt_tokens + p.usage.completion_tokens,
            )
        if self.on_answer is not None:
            self.on_answer(p)
        elif not err.is_terminal and p.answer is not None and p.outcome is not None:
            said = p.outcome.label + (f": {_first_line(p.outcome.error)}" if p.outcome.error else "")
            calls = f" ({p.usage.calls} calls so far)" if p.usage.calls or p.usage.cache_hits else ""
            tried = f" (try {p.try_number})" if self.tries > 1 else ""
            left = _time_left(time.monotonic() - self.started, p.done - self.answered, p.total - p.done)
            say(f"  [{p.done}/{p.total}] {p.answer.question_id}{tried}: {said}{calls}{left}")


def _time_left(elapsed: float, done: int, left: int) -> str:
    """`, about 4 min left` from the pace so far; empty before the first answer, after the last, and under 10 s."""
    if done <= 0 or left <= 0:
        return ""
    seconds = elapsed / done * left
    if seconds < 10:
        return ""
    return f", about {seconds / 60:.0f} min left" if seconds >= 90 else f", about {seconds:.0f} s left"


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return _clip(lines[0] if lines else text, 200)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
