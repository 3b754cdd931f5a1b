"""What reads the clock by name: the functions and parser nodes that return the current date, time or timestamp."""

from sqlglot import exp

NOW_FUNCTIONS = frozenset(
    {
        "now",
        "getdate",
        "sysdate",
        "localtimestamp",
        "current_timestamp",
        "systimestamp",
        "sysdatetime",
        "transaction_timestamp",
        "statement_timestamp",
        "clock_timestamp",
        "get_current_timestamp",
        "current_localtimestamp",
        "utc_timestamp",
        "current_datetime",
    }
)
"""Functions that return the current timestamp when called without arguments."""
TODAY_FUNCTIONS = frozenset({"curdate", "today", "current_date", "utc_date"})
"""Functions that return the current date."""
TIME_OF_DAY_FUNCTIONS = frozenset(
    {"current_time", "localtime", "curtime", "get_current_time", "current_localtime", "utc_time"}
)
"""Functions that return the current time of day."""
CLOCK_FUNCTIONS = NOW_FUNCTIONS | TODAY_FUNCTIONS | TIME_OF_DAY_FUNCTIONS
"""Every function name (in any engine sqlglot reads) that returns the current date, time or timestamp."""

SQLITE_NOW_WHEN_EMPTY = frozenset({"date", "datetime", "time", "julianday", "unixepoch"})
"""SQLite's date functions that read the current time when called without a time value."""
SQLITE_TIME_FUNCTIONS = frozenset({"date", "datetime", "time", "julianday", "unixepoch", "strftime", "timediff"})
"""SQLite's date and time functions: each reads the clock when its time value is 'now' (strftime also without one)."""


def _node_classes(*names: str) -> tuple[type[exp.Expression], ...]:
    return tuple(getattr(exp, name) for name in names if hasattr(exp, name))


DATE_NODES = _node_classes("CurrentDate", "UtcDate")
"""Parser nodes for the current date."""
TIME_NODES = _node_classes("CurrentTime", "Localtime", "UtcTime")
"""Parser nodes for the current time of day."""
CLOCK_NODES = DATE_NODES + TIME_NODES + _node_classes(
    "CurrentTimestamp", "CurrentDatetime", "CurrentTimestampLTZ", "Localtimestamp", "Systimestamp", "UtcTimestamp"
)
"""Parser nodes for the current date, time or timestamp, whatever name produced them."""
