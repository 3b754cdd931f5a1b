"""PostgreSQL value bombs: what statements of wide `numeric`, interval, range and array values add to biarena's process.

Each bomb (tests/value_bombs.py) repeats one wide value, built once in a MATERIALIZED CTE, in four columns over
100,000 rows, so the server sends far more than it computes: `numeric` (10^131071, 131,072 digits), `interval` (an
array of 15,000 intervals), `range` (a numrange of 131,072-digit bounds), `array` (seven such numerics).

Each runs in a fresh process through `open_database(...).execute`, on a throwaway server on loopback as the docs'
read-only role, with the sandbox's default byte caps (result-bytes 64MiB, cell-bytes 1MiB). Printed per run: the
outcome, the seconds it took and what it added to the process's peak resident memory (VmHWM, reset just before it
runs). Run it with another checkout first on PYTHONPATH to measure that code.

Run: python perf/postgres_value_bombs.py [--timeouts 5,15] [--repeat 3] [--bombs numeric,interval,range,array]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.value_bombs import BOMBS, measure


def main() -> None:
    """Run each bomb at each time limit and print one line per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeouts", default="5,15", help="the sandbox's time limits to try, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each bomb at each time limit")
    parser.add_argument("--bombs", default=",".join(BOMBS), help="bombs to run, comma-separated")
    parser.add_argument("--url", help="a database URL to use instead of a throwaway server")
    args = parser.parse_args()
    mib = 2**20
    server = None
    url = args.url
    if url is None:
        from tests.postgres_server import create_database, create_read_only_role, postgres_server

        server = postgres_server()
        base = server.__enter__()
        create_database(base, "bench")
        url = create_read_only_role(base, "bench")
    print(f"{'bomb':9s} {'timeout':>7s} {'added MiB':>9s} {'s':>6s}  outcome")
    try:
        for bomb in args.bombs.split(","):
            for timeout in (float(t) for t in args.timeouts.split(",")):
                for _ in range(args.repeat):
                    started = time.monotonic()
                    out = measure(url, BOMBS[bomb], timeout)
                    took = out.get("seconds", time.monotonic() - started)
                    added = f"{out['added'] // mib:9d}" if "added" in out else f"{'-':>9s}"
                    after = "" if out.get("after") == [[2]] else f" (next statement: {out.get('after')})"
                    print(f"{bomb:9s} {timeout:7g} {added} {took:6.1f}  {out['outcome']}{after}", flush=True)
    finally:
        if server is not None:
            server.__exit__(None, None, None)


if __name__ == "__main__":
    main()
