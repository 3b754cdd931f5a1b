"""Descendants: the CPU seconds and peak memory of every process below this one, sampled from /proc (Linux).

Worker processes started from a fork server are not this process's children, so `getrusage` does not see them;
reading /proc does. Used by the perf scripts that start processes (`synth.py`, `synth_partitions.py`).
"""

import os
import threading
from pathlib import Path


class Descendants:
    """Samples this process's descendants (workers fork from a server, so `getrusage` does not see them): each
    one's peak resident memory (VmHWM, itself a peak) and CPU seconds, from /proc (Linux)."""

    def __init__(self) -> None:
        self.peak_kib: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def sample(self) -> None:
        """One look at every descendant."""
        parents: dict[int, int] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(stat.parent.name)] = int(fields[1])
        mine, frontier = set(), {os.getpid()}
        while frontier:
            frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
            mine |= frontier
        ticks = os.sysconf("SC_CLK_TCK")
        for pid in mine:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            self.cpu[pid] = (int(fields[11]) + int(fields[12])) / ticks
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_kib[pid] = max(self.peak_kib.get(pid, 0), int(line.split()[1]))

    def run(self) -> None:
        """Sample until stopped."""
        while not self.stop.wait(0.05):
            self.sample()

    def __enter__(self) -> "Descendants":
        if Path("/proc/self/stat").exists():
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
