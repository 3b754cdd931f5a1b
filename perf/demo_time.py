"""Where `biarena demo` spends its time and memory: wall time, peak memory and model tokens per phase.

Runs the real `biarena demo` (the installed entry point) in a child process with an empty biarena home (no
cached replies, the benchmark built afresh) and the embedded model already assembled, then prints the whole
run's wall time and peak resident memory (measured from outside) and the demo's own per-phase figures.

Run: python perf/demo_time.py [--agents text2sql,sequential] [--per-category 1] [--keep DIR] [-- extra demo options]
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from biarena.llm.weights import model_home, model_path
from biarena.report.demo_phases import PHASES_FILE


def main() -> None:
    """Run the demo once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="text2sql,sequential")
    parser.add_argument("--per-category", default="1")
    parser.add_argument("--keep", type=Path, help="copy the demo's runs and report to this directory")
    parser.add_argument("extra", nargs="*", help="further options passed to biarena demo")
    args = parser.parse_args()

    model = model_path(model_home(None))  # assembled once, outside the measurement
    entry = Path(sys.executable).parent / "biarena"
    with tempfile.TemporaryDirectory(prefix="biarena-demo-time-") as home:
        out_dir = Path(home) / "demo"
        env = {**os.environ, "BIARENA_HOME": home, "BIARENA_MODEL_HOME": str(model.parent.parent)}
        command = [str(entry), "demo", "-o", str(out_dir), "--agents", args.agents]
        command += ["--per-category", args.per_category, *args.extra]
        start = time.perf_counter()
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        if result.returncode != 0:
            sys.stderr.write(result.stderr[-4000:])
            raise SystemExit(f"biarena demo failed with exit {result.returncode}")
        phases = json.loads((out_dir / PHASES_FILE).read_text(encoding="utf-8"))
        report = out_dir / "report.html"
        print(f"biarena demo --agents {args.agents} --per-category {args.per_category}")
        print(f"wall time {wall:.1f} s ({wall / 60:.2f} min), peak resident memory {peak_mb:.0f} MB (whole process)")
        print(f"report {report.stat().st_size:,} bytes")
        print(f"{'phase':<22}{'seconds':>9}{'peak MB':>9}{'calls':>7}{'prompt tok':>12}{'output tok':>12}{'tok/s':>7}")
        for phase in phases:
            rate = phase["completion_tokens"] / phase["seconds"] if phase["seconds"] and phase["calls"] else 0.0
            print(
                f"{phase['name']:<22}{phase['seconds']:>9.1f}{phase['peak_rss_mb']:>9.0f}{phase['calls']:>7}"
                f"{phase['prompt_tokens']:>12}{phase['completion_tokens']:>12}{rate:>7.1f}"
            )
        if args.keep:
            shutil.copytree(out_dir, args.keep, dirs_exist_ok=True)
            print(f"runs and report kept in {args.keep}")


if __name__ == "__main__":
    main()
