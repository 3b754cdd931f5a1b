"""SharedCpu: the calling thread and an engine process's threads kept on one CPU while a short statement runs.

A statement sent to an engine process wakes that process, and its reply wakes the sender; the engine wakes its own
worker threads too (DuckDB's). When they sleep and wake on different CPUs, each wake-up crosses CPUs and finds an idle
one halted: on a virtual machine that costs more than a small statement itself (a round trip of `SELECT 42` measured
0.39 ms of CPU with the two processes apart, 0.13 ms on one CPU, on a 2-core virtual machine; DuckDB's worker thread
cost bis-synth's 2 ms statements 0.5 ms of CPU each and bought them no speed). So for the first few milliseconds of a
statement the sender and the engine's threads are held on the CPU the sender runs on. A statement still running
after that lets them all go, so that long statements spread over every CPU as before; and a CPU holds one statement
at a time, so that statements run at once from several threads are never held on one CPU together.
"""

import contextlib
import os
import threading
from collections.abc import Sequence
from typing import Any

HOLD_SECONDS = 0.02
"""How long a statement keeps the sender and the engine process's threads on one CPU."""


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
    """Hold this thread and the threads `threads` (an engine process's, by id) on this thread's CPU until `release`.

    Does nothing where threads cannot be placed (not Linux), when this thread may run on one CPU only, or when another
    statement holds this CPU already.
    """

    __slots__ = ("_cpu", "_mask", "_threads")

    def __init__(self, threads: Sequence[int]) -> None:
        self._threads = threads
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
            for thread in self._threads:
                with contextlib.suppress(OSError):  # a thread that has ended (the request finds out if it was all)
                    os.sched_setaffinity(thread, (cpu,))
        except OSError:  # this thread's CPUs cannot be read or set: everything stays as it was
            self.release()

    def release(self) -> None:
        """Let this thread and the held ones run on any of this thread's CPUs again (at most once)."""
        mask, self._mask = self._mask, None
        if mask is None:
            return
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, mask)
        for thread in self._threads:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(thread, mask)
        with _held_lock:
            _held.discard(self._cpu)
