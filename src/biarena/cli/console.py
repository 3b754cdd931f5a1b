"""Shared consoles: results to stdout, messages and progress to stderr."""

from rich.console import Console

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fmt(value: float | None, digits: int = 3) -> str:
    """Format a score for a table ('-' when absent)."""
    return "-" if value is None else f"{value:.{digits}f}"
