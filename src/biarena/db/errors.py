"""Typed failures of model-written or gold SQL. They are recorded on answers, not shown as crashes."""


class SqlProblem(Exception):
    """Base of the ways a statement can fail."""

    kind = "error"


class SqlRejected(SqlProblem):
    """The sandbox refused the statement before it ran; the message says why."""

    kind = "rejected"


class SqlTimeout(SqlProblem):
    """The statement ran past its time limit and was interrupted."""

    kind = "timeout"


class SqlError(SqlProblem):
    """The engine failed the statement; the message is the engine's."""

    kind = "error"


class SqlTooLarge(SqlError):
    """The statement made a value, spilled temporary files or used memory past a sandbox limit."""

    kind = "error"
