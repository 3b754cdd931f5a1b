"""WriterProcess: a writer (`biarena.synth.writers`) run in a process of its own, fed the drawn chunks over a pipe.

Drawing a chunk (numpy, one core) and inserting the one before it (SQLite binding each value, one core) then run at
the same time. Drawn chunks wait in a queue of AHEAD chunks, handed over by a thread of this process: the drawing
may run ahead while the process inserts the chunks of a table that is slower to insert than to draw, so the process
still has chunks to insert when the drawing meets a table that is slower to draw. At most AHEAD + 2 chunks are in
this process's memory. The process receives the drawn arrays as they are and turns
them into rows itself (arrays into lists), so that work leaves the drawing process too; times and dates are made
text before they go (fixed-width arrays, cheap to send), which evens the two processes' shares. The
writer sees the same calls in the same order as in one process, so the output is the same file byte for byte.

The process is started from a fork server (or spawned where there is none), never forked from a process that may
run threads. It ends when this process ends: on the pipe's end (this process died) it drops its connection
without committing, and the partial file is removed by the next generation into the same place.
"""

import contextlib
import multiprocessing
import queue
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from biarena.errors import BiarenaError
from biarena.synth.writers import TableDef, date_strings, open_writer, timestamp_strings

AHEAD = 4
"""Drawn chunks that may wait to be handed to the writer process."""

_STOP = ("stop",)
"""Tells the handing thread to end (not sent)."""


def _same(values: np.ndarray) -> np.ndarray:
    return values


_TEXT = {"timestamp": timestamp_strings, "date": date_strings}
"""The column kinds made text before they cross the pipe, and how."""


def worker_context(preload: str, also: tuple[str, ...] = ()) -> Any:
    """How the simulator starts its processes: from a fork server where the platform has one (it imports the module
    `preload`, and the modules `also` that are installed, once, and each process forks from it rather than from a
    process that may run threads), else spawned."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([preload, *also])
        return context
    return multiprocessing.get_context("spawn")


def _serve(conn: Connection, fmt: str, path: str) -> None:
    """The process's loop: open the writer, then create, append and close as told; any error goes back as it is."""
    writer = None
    try:
        writer = open_writer(fmt, Path(path))
        while True:
            message = conn.recv()
            verb = message[0]
            if verb == "create":
                writer.create(message[1])
            elif verb == "append":
                writer.append(message[1], message[2])
            elif verb == "close":
                writer.close(message[1])
                writer = None
                conn.send(("done", None))
                return
            else:  # "abort"
                return
    except EOFError:  # the generating process is gone
        return
    except BaseException as error:  # handed back to the generating process, which raises it
        try:
            conn.send(("error", error))
        except Exception:
            conn.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))
    finally:
        if writer is not None:
            writer.abort()
        conn.close()


class WriterProcess:
    """The writer for `fmt` at `path`, in a process of its own; the same calls as a writer (`create`, `append`,
    `close`, `abort`)."""

    def __init__(self, fmt: str, path: Path) -> None:
        context = worker_context(__name__)
        self._types: dict[str, dict[str, str]] = {}
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, fmt, str(path)), daemon=True)
        self._process.start()
        child.close()
        self._waiting: queue.Queue = queue.Queue(maxsize=AHEAD)
        self._broken = threading.Event()
        """Set when a message could not be sent: the process stopped reading (it failed and said why, or died), or
        `_failure` says what else went wrong."""
        self._failure: BaseException | None = None
        self._hands = threading.Thread(target=self._hand_over, name="synth-writer-feed", daemon=True)
        self._hands.start()

    def create(self, table: TableDef) -> None:
        """Create the table (in the writer's process)."""
        self._types[table.name] = table.types
        self._send(("create", table))

    def append(self, table: str, data: dict[str, np.ndarray]) -> None:
        """Hand one drawn chunk over; returns once it is queued (the process inserts while the next ones are drawn).

        Times and dates are made text here, as fixed-width arrays (a copy of their bytes crosses the pipe), which
        evens the two processes' work: the writer's share (making rows, binding them) is the larger."""
        types = self._types[table]
        shown = {name: _TEXT.get(types.get(name, ""), _same)(values) for name, values in data.items()}
        self._send(("append", table, shown))

    def close(self, meta: dict[str, str]) -> None:
        """Store the metadata and commit; returns when the file is complete, raising what the writer raised."""
        self._send(("close", meta))
        self._finish_handing()
        if self._failure is not None:
            raise self._failure
        self._reply()
        self._process.join()

    def abort(self) -> None:
        """Stop the process without committing."""
        self._broken.set()  # the handing thread drops what waits
        self._finish_handing()
        with contextlib.suppress(OSError):
            self._conn.send(("abort",))
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._conn.close()

    def _hand_over(self) -> None:
        """The handing thread: send each queued message in order; once the process stops reading, drop the rest."""
        while True:
            message = self._waiting.get()
            if message is _STOP:
                return
            if self._broken.is_set():
                continue
            try:
                self._conn.send(message)
            except OSError:
                self._broken.set()
            except BaseException as error:  # raised by the next call (the process, still reading, is aborted then)
                self._failure = error
                self._broken.set()

    def _send(self, message: tuple) -> None:
        while not self._broken.is_set():
            try:
                self._waiting.put(message, timeout=0.5)
                return
            except queue.Full:
                if not self._process.is_alive():
                    self._broken.set()
        self._finish_handing()
        if self._failure is not None:
            raise self._failure
        # the process stopped reading: it failed, and said why before it went
        self._reply()
        raise BiarenaError("the database writer process stopped") from None

    def _finish_handing(self) -> None:
        """Wait until every queued message is sent (or dropped) and the handing thread has ended."""
        if self._hands.is_alive():
            self._waiting.put(_STOP)
            self._hands.join()

    def _reply(self) -> None:
        """Read the process's answer: nothing on success, its error raised here."""
        try:
            verb, error = self._conn.recv()
        except (EOFError, OSError):
            self._process.join(timeout=10)
            raise BiarenaError(f"the database writer process ended (exit code {self._process.exitcode})") from None
        if verb == "error":
            raise error
