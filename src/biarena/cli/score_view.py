"""ScoreView: how the command line shows a scoring pass's events: a progress bar on a terminal, a line per
judgement in a log."""

import shlex
import sys
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from biarena.cli.console import err
from biarena.cli.notice_line import notice_listener
from biarena.events import Message
from biarena.llm.notices import Notice
from biarena.scoring.events import ScoreEnded, ScoreStarted, ScoreStopped
from biarena.scoring.loop import ScoreProgress


def say(text: str) -> None:
    """Print a message line as it is (not read as markup)."""
    err.print(text, markup=False, highlight=False)


def resume_command() -> str:
    """The command that scores what is left after an outage: the same one (judgements the outage stopped were not
    stored, so they are made then)."""
    return shlex.join(["biarena", *sys.argv[1:]])


class ScoreView:
    """Renders a scoring pass's events on stderr; close it (`close`) when the pass returns."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.task: Any = None
        self.judges: frozenset[str] = frozenset()
        self.notice = notice_listener(err.is_terminal, self._waiting, say)

    def __call__(self, event: Any) -> None:
        """Show one event."""
        if isinstance(event, Message):
            say(event.text)
        elif isinstance(event, ScoreProgress):
            self._progress(event)
        elif isinstance(event, Notice):
            self.notice(event)
        elif isinstance(event, ScoreStarted):
            self._start(event)
        elif isinstance(event, ScoreEnded):
            self.close()
        elif isinstance(event, ScoreStopped):
            say(event.line(resume_command()))

    def close(self) -> None:
        """Take the progress bar off the screen (kept as its last state)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def _start(self, event: ScoreStarted) -> None:
        self.judges = event.judges
        self.bar = Progress(
            TextColumn("{task.description}", markup=False, style="bold"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "failed {task.fields[failed]} · calls {task.fields[calls]} · tokens {task.fields[tokens]}",
                markup=False,
            ),
            TimeRemainingColumn(),
            TextColumn("{task.fields[waiting]}", markup=False, style="yellow"),
            console=err,
            disable=not err.is_terminal,
        )
        self.bar.start()
        self.task = self.bar.add_task("scoring", total=None, failed=0, calls=0, tokens=0, waiting="")

    def _waiting(self, text: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, waiting=text)

    def _progress(self, p: ScoreProgress) -> None:
        if self.bar is not None:
            tokens = p.usage.prompt_tokens + p.usage.completion_tokens
            self.bar.update(
                self.task,
                total=p.total,
                completed=p.done,
                failed=p.failed,
                calls=p.usage.calls,
                tokens=tokens,
                waiting="",
            )
        if not err.is_terminal and p.scorer in self.judges:
            say(f"  [{p.done}/{p.total}] {p.question_id} {p.scorer}: {_verdict(p)}")


def _verdict(p: ScoreProgress) -> str:
    """A result in a few words: its headline score, or why it failed."""
    record = p.record
    if record.failed:
        return f"failed: {record.failed.splitlines()[0][:200]}"
    values = {s.name: s for s in record.scores}
    head = values.get(p.scorer)
    if head is not None and head.value is not None:
        shown = f"{head.value:.3g}"
    else:
        first = head or next(iter(values.values()), None)
        shown = (first.rationale if first is not None else None) or "no score"
    spent = sum(1 + len(e.rejected) for e in record.trace if not e.cached)
    return shown + (f" ({spent} model calls)" if spent else "")
