"""KeptResults: statement results kept in the run file, so that a run is scored again without running SQL.

A result is kept whole (as the sandbox returned it, within its row and byte limits) with its values tagged where
JSON alone would change them (bytes, decimals, dates and times), and a failure is kept as its kind and message.
"""

import base64
import json
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Protocol

from biarena.db import QueryResult, SqlProblem
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout

_PROBLEMS: dict[str, type[SqlProblem]] = {"rejected": SqlRejected, "timeout": SqlTimeout, "error": SqlError}


class ResultKeeper(Protocol):
    """Where a run keeps statement results (a RunStore)."""

    def kept_result(self, database: str, role: str, sql: str) -> str | None:
        """The kept JSON of a statement's result, if any."""
        ...

    def keep_result(self, database: str, role: str, sql: str, body: str) -> None:
        """Keep the JSON of a statement's result."""
        ...


def _value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else {"$f": repr(value)}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$b": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, Decimal):
        return {"$d": str(value)}
    if isinstance(value, datetime):
        return {"$dt": value.isoformat()}
    if isinstance(value, date):
        return {"$da": value.isoformat()}
    if isinstance(value, time):
        return {"$t": value.isoformat()}
    return str(value)


def _restore(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    tag, text = next(iter(value.items()))
    if tag == "$f":
        return float(text)
    if tag == "$b":
        return base64.b64decode(text)
    if tag == "$d":
        return Decimal(text)
    if tag == "$dt":
        return datetime.fromisoformat(text)
    if tag == "$da":
        return date.fromisoformat(text)
    return time.fromisoformat(text)


def encode_outcome(outcome: QueryResult | SqlProblem) -> str:
    """A statement's outcome as JSON that `decode_outcome` reads back equal."""
    if isinstance(outcome, SqlProblem):
        return json.dumps({"problem": outcome.kind, "message": str(outcome)})
    return json.dumps(
        {
            "columns": list(outcome.columns),
            "rows": [[_value(v) for v in row] for row in outcome.rows],
            "truncated": outcome.truncated,
            "truncated_by": outcome.truncated_by,
            "executed_sql": outcome.executed_sql,
        },
        ensure_ascii=False,
    )


def decode_outcome(body: str) -> QueryResult | SqlProblem:
    """The outcome `encode_outcome` wrote."""
    data = json.loads(body)
    if "problem" in data:
        return _PROBLEMS.get(data["problem"], SqlError)(data["message"])
    return QueryResult(
        columns=data["columns"],
        rows=[tuple(_restore(v) for v in row) for row in data["rows"]],
        truncated=data["truncated"],
        executed_sql=data.get("executed_sql", ""),
        truncated_by=data.get("truncated_by"),
    )
