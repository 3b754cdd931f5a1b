"""RunView: how the command line shows a run's events: a progress bar on a terminal, a line per answer in a log."""

import shlex
import sys
import time
from collections.abc import Callable

from biarena.cli.console import err
from biarena.cli.event_view import EventView, say
from biarena.runner.events import RunEnded, RunStarted, RunStopped
from biarena.runner.run import RunProgress


def resume_command() -> str:
    """The command line that resumes this run after an outage: the same one, asking again what failed."""
    args = sys.argv[1:]
    return shlex.join(["biarena", *args, *([] if "--retry-errors" in args else ["--retry-errors"])])


class RunView(EventView):
    """Renders a run's events on stderr; `on_answer`, when given, is called with each answer instead of the
    one-line log (the demo prints answers its own way). Close it (`close`) when the run returns."""

    progress_type = RunProgress
    started_type = RunStarted
    ended_type = RunEnded
    stopped_type = RunStopped
    counters = (
        "ran {task.fields[ran]} · SQL failed {task.fields[sql_failed]} · no answer {task.fields[no_answer]} · "
        "calls {task.fields[calls]} · tokens {task.fields[tokens]}"
    )
    narrow_counters = (
        "ran {task.fields[ran]} · SQL failed {task.fields[sql_failed]} · no answer {task.fields[no_answer]}"
    )

    def __init__(self, on_answer: Callable[[RunProgress], None] | None = None) -> None:
        super().__init__()
        self.on_answer = on_answer
        self.started = 0.0
        self.answered = 0
        self.tries = 1

    def resume_command(self) -> str:
        """The same command, asking again what failed."""
        return resume_command()

    def _start(self, event: RunStarted) -> None:
        self.started, self.answered, self.tries = time.monotonic(), event.completed, event.tries
        self._open_bar(
            event.name, event.total, completed=event.completed, ran=0, sql_failed=0, no_answer=0, calls=0, tokens=0
        )

    def _progress(self, p: RunProgress) -> None:
        self._update(
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
