"""The user-facing error family: the CLI prints these as one line and exits with code 2; and the warnings a user
should read, which the library raises through Python's `warnings` and the CLI shows as one line each."""


class BiarenaError(Exception):
    """A problem the user can act on (bad file, missing database, unknown name)."""


class FormatError(BiarenaError):
    """A file does not hold what its format requires; the message says where and what."""


class NotFoundError(BiarenaError):
    """A named thing (file, database, built-in, question) does not exist."""


class UsageError(BiarenaError):
    """Arguments or options that do not fit together."""


class BiarenaWarning(UserWarning):
    """Something the user should read that does not stop the work; the CLI shows it as one line, after `prefix`."""

    prefix = "warning: "


class NoteWarning(BiarenaWarning):
    """A note about the work under way (a model's server ignored an option, say), shown as it is."""

    prefix = ""


def did_you_mean(name: str, choices: list[str]) -> str:
    """Return a ' (did you mean X?)' hint for a misspelt name, or '' when nothing is close."""
    import difflib

    close = difflib.get_close_matches(name, choices, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
