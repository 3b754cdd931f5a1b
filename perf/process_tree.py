"""Descendants: the CPU seconds and peak memory of every process below this one, sampled from /proc (Linux).

Worker processes started from a fork server are not this process's children, so `getrusage` does not see them;
reading /proc does. The sampling runs in a process of its own, not a thread here: a thread would compete with the
measured work for this process's interpreter, and would make it a process with more than one thread (the simulator
then starts its workers from a fork server rather than forking them, which the command line does not do). Used by
the perf scripts that start processes (`synth.py`, `synth_partitions.py`).
Run as a script (`process_tree.py PID SECONDS`), it is that sampling process: it samples PID's descendants every
SECONDS until its standard input closes, then prints what it saw as JSON.
"""

import json
import os
import select
import subprocess
import sys
from pathlib import Path


class Descendants:
    """This process's descendants (workers fork from a server, so `getrusage` does not see them): each one's peak
    resident memory (VmHWM, itself a peak) and CPU seconds, from /proc (Linux), by a sampling process."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.peak_kib: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self.watcher: subprocess.Popen | None = None

    def __enter__(self) -> "Descendants":
        if Path("/proc/self/stat").exists():
            command = [sys.executable, __file__, str(os.getpid()), str(self.interval)]
            self.watcher = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *_: object) -> None:
        if self.watcher is None:
            return
        out, _ = self.watcher.communicate("", timeout=60)  # closing its input asks for a last look and the figures
        seen = json.loads(out)
        self.peak_kib = {int(pid): kib for pid, kib in seen["peak_kib"].items()}
        self.cpu = {int(pid): seconds for pid, seconds in seen["cpu"].items()}


def sample(root: int, skip: int, peak_kib: dict[int, int], cpu: dict[int, float]) -> None:
    """One look at every descendant of `root` but `skip` (the sampling process)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    mine, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
        mine |= frontier
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in mine - {skip}:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        cpu[pid] = (int(fields[11]) + int(fields[12])) / ticks
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak_kib[pid] = max(peak_kib.get(pid, 0), int(line.split()[1]))


def watch(root: int, interval: float) -> None:
    """Sample `root`'s descendants until standard input closes; print the figures as JSON."""
    peak_kib: dict[int, int] = {}
    cpu: dict[int, float] = {}
    while True:
        sample(root, os.getpid(), peak_kib, cpu)
        readable, _, _ = select.select([sys.stdin], [], [], interval)
        if readable and not sys.stdin.read(1):
            break
    sample(root, os.getpid(), peak_kib, cpu)
    print(json.dumps({"peak_kib": peak_kib, "cpu": cpu}))


if __name__ == "__main__":
    watch(int(sys.argv[1]), float(sys.argv[2]))
