"""Database: the sandboxed engine interface every backend implements."""

import contextlib
import math
import re
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from biarena.db.clock import anchor_clock, fold_sqlite_time_calls
from biarena.db.clock_guard import runtime_refusal
from biarena.db.clock_text import anchor_sqlite_text, may_read_clock
from biarena.db.dialect import dialect_of
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout
from biarena.db.fetch_capped import fetch_capped
from biarena.db.guard import check_read_only, parse_statements
from biarena.db.limits import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, LIMIT_FIELDS, Limited, SandboxLimits
from biarena.db.result import QueryResult

_KEPT_STATEMENTS = 2048
"""Checked, rewritten statements a database keeps for reuse."""

READ_START = re.compile(r"\s*(?:(?:--[^\n]*(?:\n|$)|/\*.*?\*/)\s*)*(?:\(|(?:select|with|values)\b)", re.I | re.S)
"""What a read statement starts with, after any comments: SELECT, WITH, VALUES or a parenthesis."""

__all__ = ["DEFAULT_MAX_ROWS", "DEFAULT_TIMEOUT", "Database", "PreparedStatement", "fetch_capped"]


@dataclass
class PreparedStatement:
    """A checked statement: the text the engine runs and, on demand, its syntax tree in the engine's dialect."""

    text: str
    dialect: str
    _tree: exp.Expression | None = None

    @property
    def tree(self) -> exp.Expression:
        """`text` parsed in the engine's dialect (kept from the check, or parsed on first use)."""
        if self._tree is None:
            self._tree = parse_statements(self.text, self.dialect)[0]
        return self._tree


class Database(Limited, ABC):
    """A read-only database that runs untrusted SQL within SandboxLimits (time, rows, bytes, memory, temp)."""

    dialect: str = "sqlite"
    engine_checks_functions: bool = False
    engine_is_sandbox: bool = False
    """True when the engine itself refuses everything the parser check refuses (writes, a second statement, a
    function off the allow-list, a catalog table, a value over the size cap), so its own-dialect text that needs no
    rewriting runs without being parsed first."""

    def check_refusal(self, sql: str) -> SqlRejected | None:
        """The parser check's reason for refusing `sql`, or None when the check lets it through."""
        try:
            check_read_only(sql, self.dialect, max_cell_bytes=self.limits.max_cell_bytes)
        except SqlRejected as rejected:
            return rejected
        return None

    """True when the engine itself refuses writes and functions off the allow-list (SQLite's authorizer)."""

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "Database":
        """The database at `url` (an engine's `scheme://...` URL), read-only; `settings` are the limits. An engine
        that reads a file takes SCHEME:///PATH (see `url_path`); a server engine takes the URL itself."""
        return cls(url, **settings)  # type: ignore[call-arg]

    def __init__(self, limits: SandboxLimits | None = None, **overrides: Any) -> None:
        unknown = sorted(set(overrides) - set(LIMIT_FIELDS))
        if unknown:
            raise TypeError(f"unknown sandbox limits: {', '.join(unknown)}")
        self.limits = replace(limits or SandboxLimits(), **overrides)
        self._lock = threading.RLock()
        # Statements run one at a time in the engine; reads of the schema and the kept statements (under `_lock`)
        # do not wait behind them.
        self._statement_lock = threading.Lock()
        # Checked, clock-anchored text by (statement, dialect, now): a gold query shared by a question's languages,
        # or run again by the scorer, is checked and rewritten once. Text only: every caller parses its own tree.
        self._anchored: OrderedDict[tuple[str, str, datetime | None], str] = OrderedDict()

    def start(self) -> None:
        """Make the engine ready for statements now (its engine process starts, its server connection opens) rather
        than at the first statement; a failure is left for the first statement to report."""
        # Whatever keeps the engine from starting, the first statement meets it again and says it.
        with self._statement_lock, contextlib.suppress(Exception):
            self._run("SELECT 1", self.limits.timeout, 1)

    @property
    def _text_times(self) -> bool:
        """True when the engine keeps times as text read by its time functions (SQLite), as its dialect says."""
        return dialect_of(self.dialect).text_times

    def forget_statements(self) -> None:
        """Drop the checked, rewritten statements kept for reuse."""
        with self._lock:
            self._anchored.clear()

    def prepare_statement(self, sql: str, dialect: str | None = None, now: datetime | None = None) -> PreparedStatement:
        """Check `sql`, anchor its clock to `now`, and return what this engine runs, with its tree."""
        source = dialect or self.dialect
        limits = self.limits
        unparsed = (
            self.engine_is_sandbox
            and source == self.dialect
            and len(sql) <= limits.max_sql_bytes
            and READ_START.match(sql) is not None
        )
        if unparsed and not (now is not None and may_read_clock(sql)):
            # Nothing to rewrite, and the engine refuses whatever the check would (see engine_is_sandbox): it runs
            # the text as written, and a refusal is explained by the check afterwards (check_refusal).
            return PreparedStatement(sql, self.dialect)
        key = (sql, source, now)
        with self._lock:
            text = self._anchored.get(key)
            if text is not None:
                self._anchored.move_to_end(key)
                return PreparedStatement(text, self.dialect)
        # SQLite's own clock reads are rewritten in the text, token by token; anything less plain is parsed.
        text = anchor_sqlite_text(sql, now) if unparsed and now is not None and self._text_times else None
        statement = PreparedStatement(text, self.dialect) if text is not None else None
        if statement is None:
            statement = self._prepare_checked(sql, source, now)
        # The text alone: a caller that wants the tree of a kept statement parses its own (PreparedStatement.tree).
        with self._lock:
            self._anchored[key] = statement.text
            if len(self._anchored) > _KEPT_STATEMENTS:
                self._anchored.popitem(last=False)
        return statement

    def _prepare_checked(self, sql: str, source: str, now: datetime | None) -> PreparedStatement:
        limits = self.limits
        tree = check_read_only(sql, source, max_bytes=limits.max_sql_bytes, max_cell_bytes=limits.max_cell_bytes)
        try:
            changed = False
            if now is not None:
                # The tree is this call's own parse: rewrite it in place. Run-time checks are written for the engine
                # that runs the statement, so a statement in another dialect gets them once it is in the engine's.
                tree, changed = anchor_clock(tree, now, source, copy=False, guard=source == self.dialect)
            if dialect_of(source).text_times and not self._text_times:
                tree = fold_sqlite_time_calls(tree, copy=False)
            if source == self.dialect and not changed:
                return PreparedStatement(sql, self.dialect, tree)
            # The tree is this call's own: the generator may work on it without a copy.
            text = Dialect.get_or_raise(self.dialect).generate(tree, copy=False)
        except RecursionError:
            raise SqlRejected("the statement nests too deeply to rewrite") from None
        except SqlglotError as error:
            raise SqlRejected(f"cannot write it as {self.dialect} SQL: {error}") from None
        if source == self.dialect and self.engine_checks_functions:
            # Only the clock changed, in a tree already checked, and the engine holds the same allow-list.
            return PreparedStatement(text, self.dialect)
        # The engine runs the rewritten text: check it as that engine's SQL.
        tree = check_read_only(text, self.dialect, max_cell_bytes=limits.max_cell_bytes)
        if source != self.dialect and now is not None:
            # What reads the clock in the engine's own dialect (a cast that the translation made, a date string).
            try:
                tree, changed = anchor_clock(tree, now, self.dialect, copy=False)
                if changed:
                    text = Dialect.get_or_raise(self.dialect).generate(tree)
            except RecursionError:
                raise SqlRejected("the statement nests too deeply to rewrite") from None
            except SqlglotError as error:
                raise SqlRejected(f"cannot write it as {self.dialect} SQL: {error}") from None
        return PreparedStatement(text, self.dialect, tree)

    def prepare(self, sql: str, dialect: str | None = None, now: datetime | None = None) -> str:
        """Check `sql`, anchor its clock to `now`, and return the text to run on this engine."""
        return self.prepare_statement(sql, dialect, now).text

    def execute(
        self,
        sql: str,
        *,
        dialect: str | None = None,
        now: datetime | None = None,
        timeout: float | None = None,
        max_rows: int | None = None,
        prepared: PreparedStatement | None = None,
    ) -> QueryResult:
        """Run one untrusted read statement; raise SqlRejected, SqlTimeout or SqlError on failure.

        The time limit covers checking and rewriting the statement as well as running and fetching it;
        `prepared` (from prepare_statement) skips the check already made.
        """
        limit = self.limits.timeout if timeout is None else timeout
        cap = self.limits.max_rows if max_rows is None else max_rows
        started = time.monotonic()
        statement = prepared or self.prepare_statement(sql, dialect, now)
        checking = time.monotonic() - started
        if checking >= limit:
            raise SqlTimeout(f"statement interrupted after {limit:g} s (checking it took {checking:.2f} s)")
        with self._statement_lock:
            try:
                columns, rows, truncated_by = self._run(statement.text, limit - checking, cap)
            except SqlTimeout:
                raise SqlTimeout(f"statement interrupted after {limit:g} s") from None
            except SqlError as error:
                refused = runtime_refusal(str(error))
                if refused is None:
                    raise
                raise refused from None
        return QueryResult(
            columns=columns,
            rows=rows,
            truncated=truncated_by is not None,
            elapsed=time.monotonic() - started,
            executed_sql=statement.text,
            truncated_by=truncated_by,
        )

    @abstractmethod
    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        """Run checked SQL in the engine's sandbox; return columns, rows and which cap cut them (None if none)."""

    @abstractmethod
    def tables(self) -> list[str]:
        """Return the user tables' names."""

    def views(self) -> list[str]:
        """Return the names among `tables()` that are views (an engine that cannot tell returns none)."""
        return []

    @abstractmethod
    def table_ddl(self, table: str) -> str:
        """Return a CREATE TABLE statement describing `table`."""

    @abstractmethod
    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`'s foreign keys."""

    @abstractmethod
    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table` (trusted, internal)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def finite(seconds: float) -> bool:
    """True when `seconds` is a real time limit (not `inf`)."""
    return not math.isinf(seconds)
