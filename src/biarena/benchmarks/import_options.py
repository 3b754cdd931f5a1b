"""ImportOptions: what every importer takes (the clock anchor); each importer's own options extend it."""

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator

from biarena.benchmarks.anchor import parse_now
from biarena.errors import UsageError
from biarena.options import Options, Shown


def _read_now(value: Any) -> Any:
    """A clock anchor as given: text (an ISO date or date-time, or auto), a date, or a moment."""
    if isinstance(value, datetime) or value is None:
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if not isinstance(value, str):
        raise ValueError("must be a date, a date-time or auto")
    try:
        return parse_now(value)
    except UsageError:
        raise ValueError("not a date or time; give YYYY-MM-DD, 'YYYY-MM-DD HH:MM:SS' or auto") from None


NowOption = Annotated[datetime | Literal["auto"] | None, Shown("DATETIME|auto"), BeforeValidator(_read_now)]
"""A clock anchor option: a moment, `auto` (each database's latest timestamp), or none."""


class ImportOptions(Options):
    """What every importer takes."""

    now: NowOption = None
    """Clock anchor of relative questions ('last month'): a date or date-time, or auto (each database's latest
    timestamp: ISO text and date/time columns)."""
