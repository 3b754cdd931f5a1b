"""notice_listener: how a command with a progress bar shows what model calls tell it (waits, a reply being written)."""

import time
from collections.abc import Callable

from biarena.llm.notices import Notice

PIPED_WRITING_EVERY = 10.0
"""Seconds between two `writing` lines when stderr is not a terminal (a terminal's bar shows each notice)."""


def notice_listener(
    terminal: bool, show: Callable[[str], None], say: Callable[[str], None]
) -> Callable[[Notice], None]:
    """A listener for `biarena.llm.notices`: in a terminal, waits and a reply's progress go to the bar (`show`,
    cleared by the caller on the next answer); piped, they are lines (`say`), a reply's progress at most every
    `PIPED_WRITING_EVERY` seconds."""
    last = [0.0]

    def listener(notice: Notice) -> None:
        if notice.kind == "writing":
            if terminal:
                show(notice.text)
            elif time.monotonic() - last[0] >= PIPED_WRITING_EVERY:
                last[0] = time.monotonic()
                say(f"  {notice.text}")
        elif notice.kind == "wait":
            text = f"waiting {notice.seconds:.0f} s: {notice.text}"
            show(text[:100]) if terminal else say(f"  {text}")
        else:
            say(notice.text)

    return listener
