"""ScoreView: how the command line shows a scoring pass's events: a progress bar on a terminal, a line per
judgement in a log."""

import shlex
import sys

from biarena.cli.console import err
from biarena.cli.event_view import EventView, say
from biarena.scoring.events import ScoreEnded, ScoreStarted, ScoreStopped
from biarena.scoring.loop import ScoreProgress


class ScoreView(EventView):
    """Renders a scoring pass's events on stderr; close it (`close`) when the pass returns."""

    progress_type = ScoreProgress
    started_type = ScoreStarted
    ended_type = ScoreEnded
    stopped_type = ScoreStopped
    counters = "failed {task.fields[failed]} · calls {task.fields[calls]} · tokens {task.fields[tokens]}"

    def __init__(self) -> None:
        super().__init__()
        self.judges: frozenset[str] = frozenset()

    def resume_command(self) -> str:
        """The command that scores what is left after an outage: the same one (judgements the outage stopped were
        not stored, so they are made then)."""
        return shlex.join(["biarena", *sys.argv[1:]])

    def _start(self, event: ScoreStarted) -> None:
        self.judges = event.judges
        self._open_bar("scoring", None, failed=0, calls=0, tokens=0)

    def _progress(self, p: ScoreProgress) -> None:
        tokens = p.usage.prompt_tokens + p.usage.completion_tokens
        self._update(total=p.total, completed=p.done, failed=p.failed, calls=p.usage.calls, tokens=tokens)
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
