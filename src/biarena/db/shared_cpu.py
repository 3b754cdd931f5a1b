"""SharedCpu: the calling thread and an engine process's main thread kept on one CPU while a short statement runs.

A statement sent to an engine process wakes that process, and its reply wakes the sender. When the two sleep and
wake on different CPUs, each wake-up crosses CPUs and finds an idle one halted: on a virtual machine that costs more
than a small statement itself (a round trip of `SELECT 42` measured 0.39 ms of CPU with the two apart, 0.13 ms on
one CPU, on a 2-core virtual machine). So for the first few milliseconds of a statement both threads are held on the
CPU the sender runs on; the process's other threads (an engine's own workers) stay free. A statement still running
after that lets both go, so that long statements spread over every CPU as before; and a CPU holds one statement at a
time, so that statements run at once from several threads are never held on one CPU together.
"""

import contextlib
import os
import threading
from typing import Any

HOLD_SECONDS = 0.02
"""How long a statement keeps the sender and the engine process's main thread on one CPU."""


def _cpu_reader() -> Any:
    """libc's sched_getcpu, or None where there is none (or no way to set a thread's CPUs)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (OSError, AttributeError, ImportError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = []
    return function


_sched_getcpu = _cpu_reader()
_held: set[int] = set()
"""The CPUs a statement holds now."""
_held_lock = threading.Lock()


class SharedCpu:
    """Hold this thread and the thread `pid` (an engine process's main thread) on this thread's CPU until `release`.

    Does nothing where threads cannot be placed (not Linux), when this thread may run on one CPU only, or when another
    statement holds this CPU already.
    """

    __slots__ = ("_cpu", "_mask", "_pid")

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._mask: set[int] | None = None
        self._cpu = -1
        if _sched_getcpu is None:
            return
        try:
            mask = os.sched_getaffinity(0)
            cpu = _sched_getcpu()
            if len(mask) < 2 or cpu not in mask:
                return
            with _held_lock:
                if cpu in _held:
                    return
                _held.add(cpu)
            self._cpu, self._mask = cpu, mask
            os.sched_setaffinity(0, (cpu,))
            os.sched_setaffinity(pid, (cpu,))
        except OSError:  # the engine process has just ended: the request finds out
            self.release()

    def release(self) -> None:
        """Let both threads run on any of this thread's CPUs again (at most once)."""
        mask, self._mask = self._mask, None
        if mask is None:
            return
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, mask)
        with contextlib.suppress(OSError):
            os.sched_setaffinity(self._pid, mask)
        with _held_lock:
            _held.discard(self._cpu)
