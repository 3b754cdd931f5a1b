"""notice_listener: how a command with a progress bar shows what model calls tell it (waits, a reply being written)."""

import threading
import time
from collections.abc import Callable

from biarena.llm.notices import Notice
from biarena.llm.writing_notices import WRITING_EVERY

PIPED_WRITING_EVERY = 10.0
"""Seconds between two `writing` lines when stderr is not a terminal (a terminal's bar shows each notice)."""


def notice_listener(
    terminal: bool, show: Callable[[str], None], say: Callable[[str], None]
) -> Callable[[Notice], None]:
    """A listener for `biarena.llm.notices`: in a terminal, waits and a reply's progress go to the bar (`show`,
    cleared by the caller on the next answer); piped, they are lines (`say`), a reply's progress at most every
    `PIPED_WRITING_EVERY` seconds. Replies written at once (`--concurrency`) are shown together: how many, their
    tokens and their summed rate."""
    last = [0.0]
    writing = _WritingNow()

    def listener(notice: Notice) -> None:
        if notice.kind == "writing":
            text = writing.text(notice)
            if text is None:
                return
            if terminal:
                show(text)
            elif time.monotonic() - last[0] >= PIPED_WRITING_EVERY:
                last[0] = time.monotonic()
                say(f"  {text}")
        elif notice.kind == "wait":
            text = f"waiting {notice.seconds:.0f} s: {notice.text}"
            show(text[:100]) if terminal else say(f"  {text}")
        else:
            say(notice.text)

    return listener


class _WritingNow:
    """The replies being written now, by the `writing` notices heard: from a reply's first to its `ended` one (or,
    should that not come, until it is silent for longer than two notices apart)."""

    def __init__(self) -> None:
        self._latest: dict[int, tuple[float, Notice]] = {}
        self._lock = threading.Lock()

    def text(self, notice: Notice) -> str | None:
        """The line for the replies being written, `notice` the latest heard: its own text when it is the only one;
        None for the notice of a reply that ended."""
        now = time.monotonic()
        with self._lock:
            if notice.ended:
                self._latest.pop(notice.source, None)
                return None
            self._latest[notice.source] = (now, notice)
            for source, (heard, _) in list(self._latest.items()):
                if now - heard > 2.5 * WRITING_EVERY:
                    del self._latest[source]
            replies = [told for _, told in self._latest.values()]
        if len(replies) < 2:
            return notice.text
        started = [told for told in replies if told.tokens > 0]
        if not started:
            return f"{len(replies)} replies at once: waiting for the first token"
        about = "~" if any(told.approximate for told in started) else ""
        tokens, rate = sum(told.tokens for told in started), sum(told.rate for told in started)
        return f"{len(replies)} replies at once: {about}{tokens} tokens, {about}{rate:.1f} tok/s"
