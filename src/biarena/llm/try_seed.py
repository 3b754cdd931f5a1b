"""asking_try, seed_for_try: the try of a repeated run that model calls are made for, which moves each request's seed.

Try 0 asks with the seed the agent asks for, so a run of one try is the run it always was (and its cached replies
still answer it); try t asks with that seed plus `SEED_STRIDE * t`. The seed is part of the request and so of the
cache key: each try is its own sample at the model's temperature, reproducible and cached like any other.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

SEED_STRIDE = 1000
"""How far apart the seeds of two tries are: wider than the few seeds one answer asks with (reviewers, samples), so a
try never replays another try's request."""

_TRY: ContextVar[int] = ContextVar("biarena_try", default=0)


@contextmanager
def asking_try(number: int) -> Iterator[None]:
    """Make the model calls of this thread (and context) for try `number` of a question."""
    token = _TRY.set(number)
    try:
        yield
    finally:
        _TRY.reset(token)


def seed_for_try(seed: int | None) -> int | None:
    """The seed a request asking with `seed` is sent with in the current try."""
    number = _TRY.get()
    if number == 0:
        return seed
    return (seed or 0) + SEED_STRIDE * number
