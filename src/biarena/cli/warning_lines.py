"""warning_lines: biarena's warnings (`BiarenaWarning`) shown on stderr as one line each while a command runs."""

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from biarena.errors import BiarenaWarning


@contextmanager
def warning_lines() -> Iterator[None]:
    """While the block runs, each BiarenaWarning is one line on stderr (its prefix, then its text), every time it
    is raised; other warnings are shown as Python shows them."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", BiarenaWarning)
        shown = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if isinstance(message, BiarenaWarning):
                print(f"{message.prefix}{message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
