"""serve: an engine process. It opens one database file read-only and runs the statements its parent sends.

The parent (EngineProcess) watches this process's memory and time and kills it past either limit, so nothing a
statement builds (a value outside the engine's own memory limit, the rows fetched into Python) can grow the parent.
Messages both ways are length-prefixed pickles (`send_message`, `read_message`). This module imports only the
standard library and the small modules it needs, so that an engine process starts in a fraction of a second; each
engine's own side (ENGINES) is imported once the first request names it.
"""

import importlib
import os
import pickle
import resource
import struct
import threading
import time
from typing import Any, BinaryIO, Protocol

from biarena.db.errors import SqlError, SqlProblem, SqlRejected, SqlTimeout, SqlTooLarge

HEADER = struct.Struct(">Q")
"""A message's length, before its pickled body."""

PROBLEMS: dict[str, type[SqlProblem]] = {c.__name__: c for c in (SqlError, SqlRejected, SqlTimeout, SqlTooLarge)}
"""The failures a reply may name, by class name."""

_JOINED = 1 << 16


class ServedEngine(Protocol):
    """One open database in the engine process."""

    errors: tuple[type[BaseException], ...]
    """The engine's own exception classes, which `problem` explains."""

    def run(self, sql: str, max_rows: int, max_bytes: int, max_cell: int, timeout: float) -> tuple:
        """Run untrusted SQL; return columns, rows and which cap cut them."""

    def internal(self, sql: str, params: list) -> tuple:
        """Run trusted SQL; return columns and every row."""

    def problem(self, error: BaseException) -> tuple[str, str]:
        """The failure class name and message the parent raises for one of `errors` or a MemoryError."""

    def close(self) -> None:
        """Close the database."""


def send_message(stream: BinaryIO, message: Any) -> None:
    """Write one message to `stream` and flush it."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    if len(body) < _JOINED:
        stream.write(HEADER.pack(len(body)) + body)  # one write: most messages are a statement or a few rows
    else:
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
    # A parent that dies without closing us (SIGKILL) must not leave a statement running: the engines release
    # the GIL while they work, so this thread notices within a second even mid-statement.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _engine_threads(watcher: threading.Thread) -> list[int]:
    """This process's threads but the watcher (the main thread first), or [] where they cannot be listed."""
    try:
        listed = sorted(int(t) for t in os.listdir("/proc/self/task"))
    except (OSError, ValueError):
        return []
    main = os.getpid()
    return [main] + [t for t in listed if t not in (main, watcher.native_id)]


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


def serve() -> None:
    """Answer the parent's requests on stdin/stdout until it closes them.

    The first request is ("open", engine, path, options, temp_directory, data_limit); then ("run", sql, max_rows,
    max_bytes, max_cell, timeout) and ("internal", sql, params). Each reply is ("ok", value) or (failure class name,
    message).
    """
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    # Nothing else may write into the reply channel (a library's progress output, a stray print).
    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 0)
    os.dup2(quiet, 1)
    watcher = threading.Thread(target=_leave_with_parent, args=(os.getppid(),), daemon=True)
    watcher.start()
    _, module, path, options, temp_directory, data_limit = read_message(requests)
    if data_limit:
        # A second bound beside the parent's watch: an allocation past it fails at once, however fast it grows.
        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        limit = data_limit if hard == resource.RLIM_INFINITY else min(data_limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    try:
        engine: ServedEngine = importlib.import_module(module).open_engine(path, options, temp_directory)
    except Exception as error:
        send_message(replies, ("NotFound", _first_line(error)))
        return
    send_message(replies, ("ok", _engine_threads(watcher)))
    caught = (*engine.errors, MemoryError)
    while True:
        try:
            request = read_message(requests)
        except EOFError:
            break
        try:
            if request[0] == "run":
                reply: tuple = ("ok", engine.run(*request[1:]))
            else:
                reply = ("ok", engine.internal(*request[1:]))
        except SqlProblem as problem:
            reply = (type(problem).__name__, str(problem))
        except caught as error:
            reply = engine.problem(error)
        try:
            send_message(replies, reply)
        except MemoryError:
            send_message(replies, ("SqlTooLarge", "the result is too large to return within the memory limit"))
    engine.close()
