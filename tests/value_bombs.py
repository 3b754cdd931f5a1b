"""PostgreSQL value bombs: statements whose values are wide (digits, elements, bounds) while the server computes each
once, and the measurement of one statement in a fresh process (tests/test_postgres_value_bombs.py and
perf/postgres_value_bombs.py)."""

import json
import subprocess
import sys

_SERIES = " FROM m CROSS JOIN generate_series(1, 100000) AS g"
_FOUR = "SELECT v AS a, v AS b, v AS c, v AS d"
_POWER = "FROM (SELECT power(10::numeric, 131071) AS p) AS b"
BOMBS = {
    "numeric": "WITH m AS MATERIALIZED (SELECT power(10::numeric, 131071) AS v) " + _FOUR + _SERIES,
    "interval": "WITH m AS MATERIALIZED (SELECT array_agg(make_interval(days => n, secs => n / 7.0)) AS v "
    "FROM generate_series(1, 15000) AS n) " + _FOUR + _SERIES,
    "range": f"WITH m AS MATERIALIZED (SELECT ('[' || (p - 1)::text || ',' || p::text || ']')::numrange AS v {_POWER}) "
    + _FOUR
    + _SERIES,
    "array": f"WITH m AS MATERIALIZED (SELECT ARRAY[p, p, p, p, p, p, p] AS v {_POWER}) " + _FOUR + _SERIES,
}
"""Each bomb's statement: one wide value (built once in a MATERIALIZED CTE) in four columns over 100,000 rows.
`numeric` is 10^131071 (131,072 digits), `interval` an array of 15,000 intervals, `range` a numrange whose bounds
have 131,071 and 131,072 digits, `array` seven 131,072-digit numerics."""

# In a fresh process: open the database, run a first statement, reset this process's peak resident memory, run the
# statement, and print what it added, the outcome, the seconds and whether the next statement runs.
# argv: URL, statement, timeout.
MEASURE = """
import json, sys, time
from pathlib import Path
from biarena.db import SqlProblem, open_database

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0

url, sql, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
db = open_database(url, timeout=timeout)
db.execute("SELECT 1")
before = status("VmRSS")
Path("/proc/self/clear_refs").write_text("5")
started = time.monotonic()
try:
    result = db.execute(sql, dialect="postgres")
    outcome = f"ran: {result.row_count} rows" + (f", cut by {result.truncated_by}" if result.truncated else "")
except SqlProblem as problem:
    outcome = f"{type(problem).__name__}: {str(problem)[:90]}"
seconds = time.monotonic() - started
added = status("VmHWM") - before
after = db.execute("SELECT 2").rows
db.close()
print(json.dumps({"outcome": outcome, "seconds": seconds, "added": added, "after": after}))
"""


def measure(url: str, sql: str, timeout: float) -> dict:
    """Run `sql` through `open_database(url, timeout=timeout).execute` in a fresh process; return what it printed:
    outcome, seconds, added (bytes of peak resident memory) and after (the next statement's rows)."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, url, sql, str(timeout)],
        capture_output=True,
        text=True,
        timeout=timeout * 20 + 120,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:]
        return {"outcome": f"process failed ({done.returncode}): {tail}"}
    return json.loads(done.stdout.strip().splitlines()[-1])
