"""writing_notices: tell listeners, every `WRITING_EVERY` seconds while a reply is written, how far it has come."""

import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from biarena.llm.notices import Notice, notify

WRITING_EVERY = 1.0
"""Seconds between two `writing` notices while a reply is written."""

_SOURCES = itertools.count(1)


@dataclass
class Tally:
    """How far a reply is: what `writing_notices` reads while the reply is written (the local model keeps the same
    two counts itself)."""

    written: int = 0
    """Tokens written so far."""
    first_written_at: float | None = None
    """When the first token came (`time.monotonic()`); None while the prompt is read."""
    approximate: bool = False
    """`written` counts the pieces a server streamed (one token each on most servers), not its own token count."""
    prompt_tokens: int = 0
    """Tokens of the prompt, when the model tells how far it has read it (0: it does not, e.g. a server)."""
    prompt_read: int = 0
    """Of those, read so far (a prefix kept from the previous prompt counts as read)."""
    reading_from: int = 0
    """Tokens already read when reading began (the kept prefix): the reading rate counts those read after."""
    reading_started_at: float | None = None
    """When reading the prompt began (`time.monotonic()`)."""
    prompt_read_at: float | None = None
    """When `prompt_read` last grew (`time.monotonic()`)."""

    def add(self, tokens: int = 1, *, exact: int | None = None) -> None:
        """Count `tokens` more (streamed pieces), or set the count to the server's own `exact` one."""
        if self.first_written_at is None:
            self.first_written_at = time.monotonic()
        if exact is not None:
            self.written, self.approximate = exact, False
        else:
            self.written, self.approximate = self.written + tokens, True


@dataclass
class _Reply:
    """A reply being written, as the ticker sees it."""

    tally: Any
    who: str
    reading: str
    started: float
    source: int
    due: float
    """When its next notice is due (`time.monotonic()`)."""
    told: bool = False
    open: bool = True
    """False once the block has ended: nothing more is told about it but its `ended` notice."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held while it is told about, so its `ended` notice comes after every other."""

    def tell(self) -> None:
        """Tell listeners how far the reply is (unless its block has ended)."""
        with self.lock:
            if not self.open:
                return
            self.told = True
            tally, who = self.tally, self.who
            written, first = getattr(tally, "written", 0), getattr(tally, "first_written_at", None)
            if first is None:
                text = reading_text(tally, who, self.reading, time.monotonic() - self.started)
                notify(Notice("writing", text, tokens=0, rate=0.0, source=self.source))
                return
            rate = written / max(time.monotonic() - first, 1e-6)
            approximate = bool(getattr(tally, "approximate", False))
            about = "~" if approximate else ""
            text = f"{who} writing: {about}{written} tokens, {about}{rate:.1f} tok/s"
            notify(Notice("writing", text, tokens=written, rate=rate, approximate=approximate, source=self.source))


def reading_text(tally: Any, who: str, reading: str, waited: float) -> str:
    """The line while the prompt is read: tokens read of the prompt's, the reading rate and the time left when the
    model tells them (`prompt_tokens`, `prompt_read`, `reading_from`, `reading_started_at`, `prompt_read_at` on
    `tally`), else only how long it has been (`waited` seconds).

    The count grows a batch at a time (512 tokens, most of a minute on two cores): the rate is the one measured when
    the last batch was read, and the time left counts down from what it predicted then, rather than jumping up
    while the next batch is read."""
    total, read = getattr(tally, "prompt_tokens", 0), getattr(tally, "prompt_read", 0)
    if total <= 0:
        return f"{who} {reading} ({waited:.0f} s)"
    since, start = getattr(tally, "reading_started_at", None), getattr(tally, "reading_from", 0)
    counted = f"{who} {reading} {read:,}/{total:,} tokens"
    if since is None or read <= start:  # nothing read yet: no rate to tell the time left by
        return f"{counted} · {waited:.0f} s"
    now = time.monotonic()
    read_at = getattr(tally, "prompt_read_at", None) or now
    rate = (read - start) / max(read_at - since, 1e-6)
    left = max((total - read) / rate - (now - read_at), 1.0)
    return f"{counted} · {rate:.0f} tok/s · {_duration(left)} left"


def _duration(seconds: float) -> str:
    """`45s`, `1m 30s`, `1h 05m`: short enough for a progress line."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


class _Ticker:
    """One thread that tells about every reply being written when its notice is due (a thread per reply would be
    started and joined for every model call)."""

    def __init__(self) -> None:
        self.replies: dict[int, _Reply] = {}
        self.changed = threading.Condition(threading.Lock())
        self.wakes: float | None = None
        """When the thread wakes next (None: when a reply is added)."""
        self.thread: threading.Thread | None = None

    def add(self, reply: _Reply) -> None:
        """Tell about `reply` from its first due time on."""
        with self.changed:
            self.replies[reply.source] = reply
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="biarena-writing", daemon=True)
                self.thread.start()
            elif self.wakes is None or reply.due < self.wakes:
                self.changed.notify()

    def remove(self, reply: _Reply) -> None:
        """Tell no more about `reply`."""
        with self.changed:
            self.replies.pop(reply.source, None)

    def _run(self) -> None:
        while True:
            with self.changed:
                now = time.monotonic()
                due = [reply for reply in self.replies.values() if reply.due <= now]
                for reply in due:  # a notice late by more than the interval is not made up for
                    reply.due = max(reply.due, now - WRITING_EVERY) + WRITING_EVERY
                if not due:
                    self.wakes = min((reply.due for reply in self.replies.values()), default=None)
                    self.changed.wait(None if self.wakes is None else self.wakes - now)
                    continue
            for reply in due:
                reply.tell()


_TICKER = _Ticker()


def _forked() -> None:
    """A child process starts with no ticker thread and no replies of its parent's."""
    global _TICKER
    _TICKER = _Ticker()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


@contextmanager
def writing_notices(tally: Any, who: str = "local model", reading: str = "reading the prompt") -> Iterator[None]:
    """While the block runs, tell listeners every `WRITING_EVERY` seconds how far the reply is: tokens written and
    tokens per second since the first one (`tally` has `written` and `first_written_at`, and `approximate` when the
    count is the server's pieces: then it reads `~N tokens`); before the first, that `who` is `reading`, with the
    tokens read of the prompt, the rate and the time left when `tally` counts them (`reading_text`). A reply that
    was told about ends with an `ended` notice. The reply itself is made as it would be without them."""
    started = time.monotonic()
    reply = _Reply(tally, who, reading, started, next(_SOURCES), started + WRITING_EVERY)
    ticker = _TICKER
    ticker.add(reply)
    try:
        yield
    finally:
        ticker.remove(reply)
        with reply.lock:
            reply.open = False
        if reply.told:
            notify(Notice("writing", "", source=reply.source, ended=True))
