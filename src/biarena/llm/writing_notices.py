"""writing_notices: tell listeners, every `WRITING_EVERY` seconds while a reply is written, how far it has come."""

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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

    def add(self, tokens: int = 1, *, exact: int | None = None) -> None:
        """Count `tokens` more (streamed pieces), or set the count to the server's own `exact` one."""
        if self.first_written_at is None:
            self.first_written_at = time.monotonic()
        if exact is not None:
            self.written, self.approximate = exact, False
        else:
            self.written, self.approximate = self.written + tokens, True


@contextmanager
def writing_notices(tally: Any, who: str = "local model", reading: str = "reading the prompt") -> Iterator[None]:
    """While the block runs, tell listeners every `WRITING_EVERY` seconds how far the reply is: tokens written and
    tokens per second since the first one (`tally` has `written` and `first_written_at`, and `approximate` when the
    count is the server's pieces: then it reads `~N tokens`); before the first, that `who` is `reading`. A reply that
    was told about ends with an `ended` notice. The reply itself is made as it would be without them."""
    done = threading.Event()
    started = time.monotonic()
    source = next(_SOURCES)
    told = threading.Event()

    def tell() -> None:
        while not done.wait(WRITING_EVERY):
            told.set()
            written, first = getattr(tally, "written", 0), getattr(tally, "first_written_at", None)
            if first is None:
                text = f"{who} {reading} ({time.monotonic() - started:.0f} s)"
                notify(Notice("writing", text, tokens=0, rate=0.0, source=source))
                continue
            rate = written / max(time.monotonic() - first, 1e-6)
            approximate = bool(getattr(tally, "approximate", False))
            about = "~" if approximate else ""
            text = f"{who} writing: {about}{written} tokens, {about}{rate:.1f} tok/s"
            notify(Notice("writing", text, tokens=written, rate=rate, approximate=approximate, source=source))

    thread = threading.Thread(target=tell, name="biarena-writing", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if told.is_set():
            notify(Notice("writing", "", source=source, ended=True))
