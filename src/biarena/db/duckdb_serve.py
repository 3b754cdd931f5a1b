"""serve: the DuckDB engine process. It opens one file read-only and runs the statements its parent sends.

The parent (DuckWorker) watches this process's memory and time and kills it past either limit: DuckDB's
`memory_limit` bounds only its buffer manager, while a function can build a value of any size outside it.
Messages both ways are length-prefixed pickles (`send_message`, `read_message`). This module imports only the
standard library and the small modules it needs, so that an engine process starts in a quarter of a second.
"""

import os
import pickle
import resource
import struct
import threading
import time
from typing import Any, BinaryIO

from biarena.db.errors import SqlError, SqlProblem, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.fetch_capped import fetch_capped

HEADER = struct.Struct(">Q")
"""A message's length, before its pickled body."""

PROBLEMS: dict[str, type[SqlProblem]] = {c.__name__: c for c in (SqlError, SqlRejected, SqlTimeout, SqlTooLarge)}
"""The failures a reply may name, by class name."""


def send_message(stream: BinaryIO, message: Any) -> None:
    """Write one message to `stream` and flush it."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(body)))
    stream.write(body)
    stream.flush()


def read_message(stream: BinaryIO) -> Any:
    """Read one message from `stream`; EOFError when the other side has closed it."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    size = HEADER.unpack(head)[0]
    body = stream.read(size)
    if len(body) < size:
        raise EOFError
    return pickle.loads(body)


def _leave_with_parent(parent: int) -> None:
    # A parent that dies without closing us (SIGKILL) must not leave a statement running: DuckDB releases
    # the GIL while it works, so this thread notices within a second even mid-statement.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _problem(error: Exception, duckdb: Any) -> tuple[str, str]:
    """The failure class name and message the parent raises for a DuckDB error."""
    if isinstance(error, getattr(duckdb, "InterruptException", ())):
        return "SqlTimeout", "statement interrupted"
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    if isinstance(error, MemoryError | getattr(duckdb, "OutOfMemoryException", ())):
        return "SqlTooLarge", f"{first or 'out of memory'} (sandbox limits: memory and temp space)"
    if (
        isinstance(error, duckdb.PermissionException | getattr(duckdb, "InvalidInputException", ()))
        and "read-only" in str(error).lower()
    ):
        return "SqlRejected", f"the engine refused it: {error}"
    return "SqlError", str(error)


def _run(conn: Any, sql: str, max_rows: int, max_bytes: int, max_cell: int) -> tuple:
    cursor = conn.cursor()
    try:
        cursor.execute(sql)
        columns = [d[0] for d in cursor.description or []]
        rows, truncated_by = fetch_capped(cursor, max_rows, max_bytes=max_bytes, max_cell=max_cell, columns=columns)
        return columns, rows, truncated_by
    finally:
        cursor.close()


def _internal(conn: Any, sql: str, params: list) -> tuple:
    cursor = conn.execute(sql, params)
    columns = [d[0] for d in cursor.description or []]
    return columns, [tuple(r) for r in cursor.fetchall()]


def serve() -> None:
    """Answer the parent's requests on stdin/stdout until it closes them.

    The first request is ("open", path, config, data_limit); then ("run", sql, max_rows, max_bytes, max_cell)
    and ("internal", sql, params). Each reply is ("ok", value) or (failure class name, message).
    """
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    # Nothing else may write into the reply channel (a library's progress output, a stray print).
    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 0)
    os.dup2(quiet, 1)
    threading.Thread(target=_leave_with_parent, args=(os.getppid(),), daemon=True).start()
    _, path, config, data_limit = read_message(requests)
    if data_limit:
        # A second bound beside the parent's watch: an allocation past it fails at once, however fast it grows.
        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        limit = data_limit if hard == resource.RLIM_INFINITY else min(data_limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    import duckdb

    try:
        conn = duckdb.connect(path, read_only=True, config=config)
        # No progress bar on a process nobody watches; then no statement may change a setting.
        conn.execute("SET enable_progress_bar = false")
        conn.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        send_message(replies, ("NotFound", str(error).splitlines()[0] if str(error) else type(error).__name__))
        return
    send_message(replies, ("ok", None))
    while True:
        try:
            request = read_message(requests)
        except EOFError:
            break
        try:
            if request[0] == "run":
                reply: tuple = ("ok", _run(conn, *request[1:]))
            else:
                reply = ("ok", _internal(conn, *request[1:]))
        except SqlProblem as problem:
            reply = (type(problem).__name__, str(problem))
        except (duckdb.Error, MemoryError) as error:
            reply = _problem(error, duckdb)
        try:
            send_message(replies, reply)
        except MemoryError:
            send_message(replies, ("SqlTooLarge", "the result is too large to return within the memory limit"))
    conn.close()
