"""The user-facing error family: the CLI prints these as one line and exits with code 2."""


class BiarenaError(Exception):
    """A problem the user can act on (bad file, missing database, unknown name)."""


class FormatError(BiarenaError):
    """A file does not hold what its format requires; the message says where and what."""


class NotFoundError(BiarenaError):
    """A named thing (file, database, built-in, question) does not exist."""


class UsageError(BiarenaError):
    """Arguments or options that do not fit together."""


def did_you_mean(name: str, choices: list[str]) -> str:
    """Return a ' (did you mean X?)' hint for a misspelt name, or '' when nothing is close."""
    import difflib

    close = difflib.get_close_matches(name, choices, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
