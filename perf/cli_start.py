"""CLI start-up cost: the CPU seconds of `biarena --version`, `biarena --help` and `biarena show RUN`.

Each command runs as a user runs it (the installed entry point, a new process each time); its CPU time (user +
system, children's rusage) is what the machine spends before and while it answers. The fastest of several runs
counts, so other work on the machine does not inflate it. `show` reads a small gold run of bis-synth made first.

Run: python perf/cli_start.py [--repeat N]
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def entry_point() -> str:
    """The `biarena` script beside this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "biarena"
    found = str(beside) if beside.exists() else shutil.which("biarena")
    if found is None:
        sys.exit("the biarena entry point is not installed")
    return found


def cpu_seconds(command: list[str]) -> float:
    """CPU seconds (user + system) that `command` took, run to its end with its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Make a small run, then time each command and print its fastest CPU time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command (the fastest counts)")
    args = parser.parse_args()
    biarena = entry_point()
    with tempfile.TemporaryDirectory(prefix="biarena-cli-start-") as scratch:
        run = str(Path(scratch) / "gold.run")
        subprocess.run(
            [biarena, "run", "bis-synth", "--agent", "gold", "--per-category", "1", "-o", run],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        subprocess.run([biarena, "score", run], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        commands = {
            "biarena --version": [biarena, "--version"],
            "biarena --help": [biarena, "--help"],
            "biarena show RUN": [biarena, "show", run],
        }
        print(f"{'command':22s} {'CPU s':>7s}  (fastest of {args.repeat})")
        for label, command in commands.items():
            best = min(cpu_seconds(command) for _ in range(args.repeat))
            print(f"{label:22s} {best:7.3f}")


if __name__ == "__main__":
    main()
