"""Notices from model calls that a command may show while it works: a wait the server asked for, a changed model.

A command listens (`listening`) to show them in its progress display; with no listener, a note is raised as a
`NoteWarning` (the CLI shows it as one line) and a wait passes silently.
"""

import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from biarena.errors import NoteWarning


@dataclass(frozen=True)
class Notice:
    """Something worth telling the user about a model's calls."""

    kind: str
    """`wait` (the server asked to wait before asking again), `writing` (how far a reply the local model is writing,
    or a server is streaming, has come) or `note` (anything else, one line)."""
    text: str
    seconds: float = 0.0
    """How long the wait is, for a `wait`."""
    tokens: int = 0
    """Tokens written so far, for `writing`."""
    rate: float = 0.0
    """Tokens per second so far, for `writing`."""
    approximate: bool = False
    """`tokens` counts the pieces a server streamed (one token each on most servers), for `writing`."""
    source: int = 0
    """Which reply a `writing` notice is about (replies written at once each have their own)."""
    ended: bool = False
    """The reply is written: the last `writing` notice of its `source`, with no text to show."""


_LISTENERS: list[Callable[[Notice], None]] = []
_LOCK = threading.Lock()


def notify(notice: Notice) -> None:
    """Tell every listener; with none, raise a note as a NoteWarning."""
    with _LOCK:
        listeners = list(_LISTENERS)
    for listener in listeners:
        listener(notice)
    if not listeners and notice.kind == "note":
        warnings.warn(notice.text, NoteWarning, stacklevel=2)


@contextmanager
def listening(listener: Callable[[Notice], None]) -> Iterator[None]:
    """Send notices to `listener` while the block runs."""
    with _LOCK:
        _LISTENERS.append(listener)
    try:
        yield
    finally:
        with _LOCK:
            _LISTENERS.remove(listener)
