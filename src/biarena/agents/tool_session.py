"""ToolSession: the database tools one question's system may use (list, describe, query, submit), with its caps.

Built-in agents call a session in-process; the tool server (`biarena.toolserver`) gives external systems the same
session over the Model Context Protocol and plain JSON. Every statement runs through `run_step` (the sandbox: guard,
allow-list, clock anchor, limits), and every call is recorded on the answer being made.
"""

import math
import threading
import time
from typing import Any

from pydantic import Field

from biarena.agents.system import AgentEnv, run_step
from biarena.benchmarks.archive import Size
from biarena.llm.redact import redact_reply
from biarena.options import Options
from biarena.records import Answer, Question, Step, ToolCall

OPERATIONS = ("list_tables", "describe_table", "run_query", "submit_answer")
"""The tools, in the order a system usually needs them."""
SAMPLE_ROWS = 3
"""Sample rows `describe_table` shows."""


class ToolError(Exception):
    """A tool call the session refuses or that failed: the message is for the system to read."""


class ToolLimits(Options):
    """What one question's tool session allows (the sandbox's own limits apply to each statement as well)."""

    max_statements: int = Field(20, ge=1)
    """Statements a system may run for one question through the tools."""
    max_rows: int = Field(100, ge=1)
    """Rows of a result returned to the system (the step keeps its usual preview)."""
    max_result_bytes: Size = 64 * 1024
    """Bytes of the rows returned for one statement (rows past it are cut, and the reply says so)."""
    max_database_seconds: float = Field(120.0, gt=0)
    """Seconds one question's statements may spend in the database, all in all."""


class ToolSession:
    """The tools of one question: each call recorded on `answer` (a query also as a step), caps enforced."""

    def __init__(
        self,
        env: AgentEnv,
        question: Question,
        answer: Answer,
        limits: ToolLimits | None = None,
        *,
        deadline: float | None = None,
        record_calls: bool = True,
    ) -> None:
        self.env, self.question, self.answer = env, question, answer
        self.limits = limits or ToolLimits()
        self.deadline = deadline
        """`time.monotonic()` after which every call is refused (the question's deadline); None for none."""
        self.record_calls = record_calls
        self.submitted: dict[str, Any] | None = None
        self.database_seconds = 0.0
        self.statements = 0
        self._closed = False
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._in_flight = 0
        self._local = threading.local()  # the step of the query this thread is calling

    # the operations

    def list_tables(self) -> dict[str, Any]:
        """The tables (and which of them are views), the SQL dialect and the question's today."""
        db = self.env.databases.get(self.question.database)
        anchor = self.env.benchmark.anchor_for(self.question)
        return {
            "database": self.question.database,
            "dialect": db.dialect,
            "tables": db.tables(),
            "views": db.views(),
            "now": anchor.isoformat(sep=" ") if anchor else None,
        }

    def describe_table(self, table: str) -> dict[str, Any]:
        """A table's CREATE statement (columns, types, primary key), its foreign keys and a few sample rows."""
        db = self.env.databases.get(self.question.database)
        names = {name.lower(): name for name in db.tables()}
        name = names.get(str(table).strip().strip('"`[]').lower())
        if name is None:
            raise ToolError(f"no table '{table}' in database '{self.question.database}' (list_tables names them)")
        sample = db.sample_rows(name, SAMPLE_ROWS)
        return {
            "table": name,
            "ddl": db.table_ddl(name).strip(),
            "foreign_keys": [
                {"column": column, "references_table": target, "references_column": ref or None}
                for column, target, ref in db.foreign_keys(name)
            ],
            "sample": {"columns": sample.columns, "rows": sample.preview(SAMPLE_ROWS)},
        }

    def run_query(self, sql: str, purpose: str | None = None) -> dict[str, Any]:
        """Run one read statement in the sandbox; rows come back capped. A failed statement is a ToolError (and a
        failed step on the answer)."""
        step, result, index = self._statement(sql, purpose)
        self._local.step = index
        if step.error is not None:
            said = {"rejected": "rejected", "timeout": "timed out"}.get(str(step.error_kind), "failed")
            raise ToolError(f"{said}: {step.error}")
        assert result is not None
        rows = result.preview(self.limits.max_rows, max_bytes=self.limits.max_result_bytes)
        cut = len(rows) < len(result.rows)
        return {
            "columns": result.columns,
            "rows": rows,
            "row_count": len(result.rows),
            "truncated": bool(result.truncated or cut),
            "note": (
                f"{len(rows)} of {len(result.rows)}{'+' if result.truncated else ''} rows returned "
                f"(max_rows {self.limits.max_rows}, max_result_bytes {self.limits.max_result_bytes:,})"
                if cut or result.truncated
                else None
            ),
        }

    def submit_answer(self, answer: str, sql: str | None = None) -> dict[str, Any]:
        """Record the system's final answer (prose) and, when it offers one, the query it stands on."""
        if not isinstance(answer, str) or not answer.strip():
            raise ToolError("submit_answer needs a non-empty 'answer'")
        if sql is not None and not isinstance(sql, str):
            raise ToolError("submit_answer's 'sql' must be a string")
        self.submitted = {"answer": answer, "sql": sql or None}
        return {"submitted": True}

    # the one path every statement takes

    def statement(self, sql: str, purpose: str | None = None, *, capped: bool = True) -> tuple[Step, Any]:
        """Run `sql` as one of this question's statements, within the caps; record it on the answer and return its
        step and result (None when it failed). ToolError when a cap or the deadline refuses it. Not `capped`: a
        statement of the system's final reply (its own cap applies), run after the session ended."""
        step, result, _ = self._statement(sql, purpose, capped)
        return step, result

    def _statement(self, sql: str, purpose: str | None, capped: bool = True) -> tuple[Step, Any, int]:
        if not capped:
            step, result = run_step(self.env, self.question, sql, purpose=purpose)
            with self._lock:
                self.answer.steps.append(step)
                return step, result, len(self.answer.steps) - 1
        with self._lock:
            self._check_open()
            if self.statements >= self.limits.max_statements:
                raise ToolError(
                    f"statement cap reached: {self.limits.max_statements} statements for this question "
                    "(max_statements); submit your answer"
                )
            left = self.limits.max_database_seconds - self.database_seconds
            if left <= 0:
                raise ToolError(
                    f"time cap reached: {self.limits.max_database_seconds:g} s in the database for this question "
                    "(max_database_seconds); submit your answer"
                )
            self.statements += 1
        timeout = min(left, self.deadline - time.monotonic()) if self.deadline is not None else left
        step, result = run_step(self.env, self.question, sql, purpose=purpose, timeout=max(timeout, 0.001))
        with self._lock:
            self.database_seconds += step.elapsed or 0.0
            self.answer.steps.append(step)
            return step, result, len(self.answer.steps) - 1

    def call(self, operation: str, arguments: dict[str, Any], transport: str = "in-process") -> dict[str, Any]:
        """Call a tool by name with JSON arguments; record it. Returns the reply, or raises ToolError with what the
        system is told (redacted, as every reply is)."""
        started = time.perf_counter()
        record = ToolCall(operation="list_tables", transport=transport)  # type: ignore[arg-type]
        self._local.step = None
        entered = False
        try:
            if operation not in OPERATIONS:
                raise ToolError(f"no tool '{operation}' (the tools: {', '.join(OPERATIONS)})")
            record.operation = operation  # type: ignore[assignment]
            if not isinstance(arguments, dict):
                raise ToolError("the arguments must be a JSON object")
            record.arguments = redact_reply(_kept(arguments))
            with self._lock:
                self._check_open()
                self._in_flight += 1
                entered = True
            reply = self._dispatch(operation, arguments)
            reply = redact_reply(_finite(reply))
            if operation == "run_query":
                record.rows = len(reply["rows"])
            return reply
        except ToolError as error:
            message = redact_reply(str(error), error=True)
            record.error = message
            raise ToolError(message) from None
        except Exception as error:  # a tool's own failure is the system's to read, never the run's to crash on
            message = redact_reply(f"{type(error).__name__}: {error}", error=True)
            record.error = message
            raise ToolError(message) from None
        finally:
            record.step = self._local.step
            record.elapsed = round(time.perf_counter() - started, 6)
            with self._lock:
                # a call refused because the session had ended is not its question's (whose answer may be stored)
                if self.record_calls and operation in OPERATIONS and (entered or not self._closed):
                    self.answer.tool_calls.append(record)
                if entered:
                    self._in_flight -= 1
                    self._idle.notify_all()

    def _dispatch(self, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
        allowed = {
            "list_tables": (),
            "describe_table": ("table",),
            "run_query": ("sql", "purpose"),
            "submit_answer": ("answer", "sql"),
        }[operation]
        unknown = sorted(set(arguments) - set(allowed) - {"database"})
        if unknown:
            raise ToolError(f"{operation} takes no argument '{unknown[0]}' (it takes: {', '.join(allowed) or 'none'})")
        database = arguments.get("database")
        if database is not None and database != self.question.database:
            raise ToolError(f"this session reaches only database '{self.question.database}', not '{database}'")
        if operation == "list_tables":
            return self.list_tables()
        if operation == "describe_table":
            if not isinstance(arguments.get("table"), str):
                raise ToolError("describe_table needs 'table', a table's name")
            return self.describe_table(arguments["table"])
        if operation == "run_query":
            sql = arguments.get("sql")
            if not isinstance(sql, str) or not sql.strip():
                raise ToolError("run_query needs 'sql', one read statement")
            purpose = arguments.get("purpose")
            return self.run_query(sql, purpose if isinstance(purpose, str) else None)
        return self.submit_answer(arguments.get("answer"), arguments.get("sql"))  # type: ignore[arg-type]

    def _check_open(self) -> None:
        if self._closed:
            raise ToolError("this session has ended: its question is answered or past its deadline")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise ToolError("this session has ended: the question's deadline has passed")

    def close(self, wait: float = 60.0) -> None:
        """End the session: every later call is refused, and calls in flight finish (up to `wait` seconds) so the
        answer holds all of them once it is closed."""
        with self._lock:
            self._closed = True
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=wait)

    @property
    def closed(self) -> bool:
        """Whether the session has ended (closed, or past its deadline)."""
        return self._closed or (self.deadline is not None and time.monotonic() >= self.deadline)


def _kept(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as recorded: text kept whole up to 20,000 characters, anything else as given."""
    return {
        name: (value[:20000] if isinstance(value, str) else value)
        for name, value in arguments.items()
        if isinstance(name, str)
    }


def _finite(value: Any) -> Any:
    """`value` with every float that JSON cannot hold (NaN, infinities) written as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
