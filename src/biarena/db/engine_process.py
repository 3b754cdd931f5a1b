"""EngineProcess: an engine process for one database file, watched for memory and time and replaced when killed.

An engine's own memory limit leaves some of what a statement builds unbounded: DuckDB's bounds its buffer manager
only (a function can build a value of any size beside it: `repeat` of a list, a `printf` width), and SQLite's heap
limit holds for a whole process (in biarena's own it would cap the run store and the cache too), while the rows
fetched into Python count against neither. So statements run in a child process (engine_serve) whose resident
memory the parent reads while a statement runs (every few milliseconds near the cap); past the memory limit plus
MEMORY_MARGIN, or past the time limit, the child is killed (no waiting for the engine to notice an interrupt) and the
next request starts another. At most MAX_PROCESSES stay running in one biarena process: a benchmark of many
databases does not keep an engine process for each. While a statement is short, the engine process's threads share
the caller's CPU (SharedCpu).
"""

import contextlib
import itertools
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

from biarena.db.dialect import dialect_of
from biarena.db.engine_serve import HEADER, PROBLEMS, send_message
from biarena.db.errors import SqlError, SqlTimeout, SqlTooLarge
from biarena.db.limits import GIB, MIB, format_size
from biarena.db.scratch import scratch_dir
from biarena.db.shared_cpu import HOLD_SECONDS, SharedCpu
from biarena.errors import NotFoundError

MEMORY_MARGIN = 384 * MIB
"""What the engine process may hold beyond the engine's memory limit (Python, the engine's own code, values built
outside its limit, the rows fetched) before it is killed. With the caller's own process and the growth between two
readings, a statement stays within the memory limit plus 512 MiB."""

DATA_MARGIN = 1 * GIB
"""The engine process's data segment limit (RLIMIT_DATA) beyond the memory limit: a backstop that fails a single
huge allocation at once and holds even should the parent stop watching."""

POLL_SECONDS = 0.002
"""How often the parent reads the engine process's resident memory while a statement runs near the memory cap."""

GROWTH_PER_SECOND = 16 * GIB
"""The fastest an engine process's resident memory is taken to grow: the readings of its memory come as seldom as
the headroom below the cap allows at this rate (each wakes this process, which costs a small statement a tenth of
its time). The fastest growth seen is under 4 GiB/s over a millisecond (DuckDB building values on two threads)."""

START_SECONDS = 60.0
"""How long an engine process may take to start and open its file."""

MAX_PROCESSES = 8
"""Engine processes kept running at once, across databases: starting another stops the one idle longest (its
database starts a new one on its next statement). Spider or BIRD reach hundreds of databases."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_READ_CHUNK = 1 << 20
_FIRST_READ = 1 << 16
_serial = itertools.count(1)
# The running engine processes, least recently used first.
_running: "OrderedDict[int, weakref.ref[EngineProcess]]" = OrderedDict()
_running_lock = threading.Lock()

# The engine process imports the three small modules it needs without the package's public surface
# (biarena.db's __init__ loads sqlglot and pydantic: half a second and more memory in every engine process).
_BOOT = """\
import os, sys, types
sys.path.insert(0, sys.argv[1])
package = types.ModuleType("biarena.db")
package.__path__ = [os.path.join(sys.argv[1], "biarena", "db")]
sys.modules["biarena.db"] = package
from biarena.db.engine_serve import serve
serve()
"""


class EngineProcess:
    """One engine process for one database file: started on first use, killed past its memory or time limit.

    `engine` names an engine whose dialect names the module serving it; `options` are what it opens the file with. The
    process's data segment is limited to the memory limit plus `data_margin`, and its memory is read while a
    statement runs, every `poll_seconds` near the cap (see GROWTH_PER_SECOND).
    """

    def __init__(
        self,
        engine: str,
        path: Path,
        options: dict[str, Any],
        memory_limit: int,
        temp_name: str,
        *,
        data_margin: int = DATA_MARGIN,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.engine = engine
        self.path = path
        self.options = options
        self.memory_limit = memory_limit
        self.memory_cap = memory_limit + MEMORY_MARGIN
        self.data_limit = memory_limit + data_margin
        self.poll_seconds = poll_seconds
        self.temp_name = temp_name
        self.temp_directory: Path | None = None
        """The running engine process's spill area (removed with the process)."""
        self._process: subprocess.Popen | None = None
        self._threads: tuple[int, ...] = ()
        """The running engine process's threads, its main thread first (held on the caller's CPU while a statement is
        short)."""
        self._statm: int | None = None
        self._stat: int | None = None
        self._poller: Any = None
        self._stop: weakref.finalize | None = None
        self._busy = threading.Lock()
        """Held while a request runs, so that no other database's start stops this process under it."""

    @property
    def pid(self) -> int | None:
        """The engine process's id while one runs."""
        return self._process.pid if self._process is not None else None

    @property
    def label(self) -> str:
        """The engine's name, for messages."""
        found = dialect_of(self.engine)
        return found.label if found.name == self.engine else self.engine

    def request(self, message: tuple, timeout: float, grace: float = 0.0) -> Any:
        """Send `message` and return the reply's value; raise the failure it names, SqlTimeout or SqlTooLarge.

        The process is killed `grace` seconds past `timeout` (an engine that interrupts itself at `timeout` then
        fails the statement without being restarted). Starting the engine process does not count against `timeout`.
        """
        with self._busy:
            return self._request(message, timeout, grace)

    def _request(self, message: tuple, timeout: float, grace: float) -> Any:
        if self._process is not None and self._exited():
            self.stop()  # it died between statements (killed from outside): start another
        if self._process is None:
            self._start()
            _make_room(self)
        else:
            with _running_lock:
                if id(self) in _running:
                    _running.move_to_end(id(self))
        process = self._process
        assert process is not None and process.stdin is not None
        shared = SharedCpu(self._threads)
        try:
            try:
                send_message(process.stdin, message)
            except (BrokenPipeError, OSError):
                self._died()
            kind, value = self._receive(time.monotonic() + timeout + grace, timeout, shared)
        finally:
            shared.release()
        if kind == "ok":
            return value
        raise PROBLEMS.get(kind, SqlError)(value)

    def stop(self) -> None:
        """Kill the engine process (if any), reap it and remove its temporary files."""
        with _running_lock:
            _running.pop(id(self), None)
        self._stop_unlisted()

    def _stop_unlisted(self) -> None:
        if self._stop is not None:
            self._stop()
        self._stop = None
        self._process = None
        self._threads = ()
        self._statm = self._stat = self._poller = None
        self.temp_directory = None

    def _start(self) -> None:
        temp = scratch_dir(f"{self.temp_name}-{os.getpid()}-{next(_serial)}")
        root = str(Path(__file__).resolve().parents[2])
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOT, root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            # SQLite reads its temp directory from the environment: its spill files go to the scratch area too.
            env={**os.environ, "SQLITE_TMPDIR": str(temp)},
        )
        # Kept open and read with pread: a statement's memory is read every few milliseconds near the cap.
        try:
            statm: int | None = os.open(f"/proc/{process.pid}/statm", os.O_RDONLY)
            stat: int | None = os.open(f"/proc/{process.pid}/stat", os.O_RDONLY)
        except OSError:  # no /proc (not Linux): the data segment limit alone bounds the process
            statm = stat = None
        assert process.stdin is not None and process.stdout is not None
        poller = select.poll()
        poller.register(process.stdout.fileno(), select.POLLIN | select.POLLHUP)
        self._process, self._statm, self._stat, self._poller, self.temp_directory = process, statm, stat, poller, temp
        self._stop = weakref.finalize(self, _shutdown, process, (statm, stat), temp)
        opening = ("open", dialect_of(self.engine).serve, str(self.path), self.options, str(temp), self.data_limit)
        send_message(process.stdin, opening)
        try:
            kind, value = self._receive(time.monotonic() + START_SECONDS, START_SECONDS)
        except SqlTimeout:
            raise SqlError(f"the {self.label} engine process did not start within {START_SECONDS:g} s") from None
        if kind != "ok":
            self.stop()
            raise NotFoundError(f"cannot open {self.path} as a {self.label} database: {value}")
        self._threads = tuple(value or (process.pid,))

    def _exited(self) -> bool:
        """True when the process has ended. A killed multi-threaded process shows as a zombie before the kernel lets
        it be reaped (its other threads are still ending), and poll() says it runs for that while: /proc says
        otherwise, and an unreaped process stays there as a zombie, so /proc alone answers (one read per statement).
        """
        process = self._process
        assert process is not None
        if self._stat is None:  # no /proc (not Linux)
            return process.poll() is not None
        try:
            state = os.pread(self._stat, 512, 0).rsplit(b")", 1)[-1].split()[0]
        except (OSError, IndexError):  # the process is gone already
            return True
        return state in (b"Z", b"X")

    def _until_reading(self, resident: int) -> float:
        """Seconds until the next reading of the engine process's memory: as long as the way from `resident` to the
        cap takes at GROWTH_PER_SECOND, and at least `poll_seconds` (so a statement far below the cap wakes this
        process seldom, and one near it is read every `poll_seconds`)."""
        return max(self.poll_seconds, (self.memory_cap - resident) / GROWTH_PER_SECOND)

    def _resident(self) -> int:
        if self._statm is None:
            return 0
        try:
            return int(os.pread(self._statm, 128, 0).split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            return 0

    def _receive(self, deadline: float, timeout: float, shared: SharedCpu | None = None) -> tuple[str, Any]:
        """Read one reply, killing the process past the deadline or the memory cap; `shared` is released once the
        statement has run HOLD_SECONDS."""
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        buffer = bytearray()
        size: int | None = None
        started = time.monotonic()
        reading = started + self._until_reading(self._resident())
        while size is None or len(buffer) < HEADER.size + size:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                self.stop()
                raise SqlTimeout(f"statement interrupted after {timeout:g} s")
            wake = min(reading, started + HOLD_SECONDS) if shared is not None else reading
            if not self._poller.poll(max(0.0, min(wake - now, left)) * 1000):
                now = time.monotonic()
                if shared is not None and now >= started + HOLD_SECONDS:
                    shared.release()  # a long statement: the held threads may go to any CPU again
                    shared = None
                if now < reading:
                    continue
                resident = self._resident()
                if resident > self.memory_cap:
                    self.stop()
                    raise SqlTooLarge(
                        f"the statement used over {format_size(self.memory_cap)} of memory and was stopped "
                        f"(sandbox limit: memory={format_size(self.memory_limit)}, plus "
                        f"{format_size(MEMORY_MARGIN)} for the engine process)"
                    )
                reading = now + self._until_reading(resident)
                continue
            # One reply is outstanding at a time, so nothing past its end can be read.
            want = _FIRST_READ if size is None else HEADER.size + size - len(buffer)
            chunk = os.read(fd, min(want, _READ_CHUNK))
            if not chunk:
                self._died()
            buffer += chunk
            if size is None and len(buffer) >= HEADER.size:
                size = HEADER.unpack_from(buffer)[0]
        return pickle.loads(memoryview(buffer)[HEADER.size :])

    def _died(self) -> None:
        process = self._process
        try:
            code = process.wait(timeout=1) if process is not None else None
        except subprocess.TimeoutExpired:
            code = None
        self.stop()
        if code == -signal.SIGKILL:
            raise SqlTooLarge(
                f"the {self.label} engine process was killed from outside, most likely for lack of memory"
            )
        raise SqlError(f"the {self.label} engine process stopped unexpectedly (exit status {code})")


def _make_room(started: EngineProcess) -> None:
    """Count `started` among the running engine processes and stop the idle ones used longest ago past
    MAX_PROCESSES."""
    with _running_lock:
        _running[id(started)] = weakref.ref(started)
        for key, ref in list(_running.items()):
            if len(_running) <= MAX_PROCESSES:
                return
            other = ref()
            if other is None:
                del _running[key]
            elif other is not started and other._busy.acquire(blocking=False):
                try:
                    del _running[key]
                    other._stop_unlisted()
                finally:
                    other._busy.release()


def _shutdown(process: subprocess.Popen, proc_files: tuple[int | None, ...], temp: Path) -> None:
    """Kill and reap an engine process, close what the parent held open for it and remove its spill files."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):  # a pipe the dead process left unread
                stream.close()
    for fd in proc_files:
        if fd is not None:
            os.close(fd)
    shutil.rmtree(temp, ignore_errors=True)
