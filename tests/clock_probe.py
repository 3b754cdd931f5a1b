"""Call every DuckDB function on the sandbox's allow-list (and the clock keywords) with no argument, a timestamp or a
date, on the bare engine and through the sandbox at a fixed anchor, and print both results as JSON.

tests/test_clock_corpus.py runs this under two fake real times (faketime): a call whose bare result moves with the
real time reads the clock, and its sandboxed result must not move.

Run: python -m tests.clock_probe ANCHOR (an ISO timestamp)
"""

import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import duckdb

from biarena.db import SqlProblem, open_database
from biarena.db.allowed_functions import allowed_functions

ARGUMENTS = ("", "TIMESTAMP '2000-01-02 03:04:05'", "DATE '2000-01-02'")
KEYWORDS = ("current_date", "current_time", "current_timestamp", "localtime", "localtimestamp")


def main() -> None:
    """Print {statement: [bare result, sandboxed result]} for every call that the bare engine runs."""
    anchor = datetime.fromisoformat(sys.argv[1])
    bare = duckdb.connect()
    listed = bare.execute("SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type <> 'table'")
    names = sorted({row[0] for row in listed.fetchall()} & allowed_functions("duckdb"))
    calls = [f"{name}({argument})" for name in names for argument in ARGUMENTS] + list(KEYWORDS)
    path = Path(tempfile.mkdtemp(prefix="biarena-probe-")) / "probe.duckdb"
    duckdb.connect(str(path)).close()
    db = open_database(path)
    found = {}
    for call in calls:
        sql = f"SELECT CAST({call} AS VARCHAR)"
        try:
            raw = bare.execute(sql).fetchone()[0]
        except duckdb.Error:
            continue
        try:
            sandboxed = db.execute(sql, now=anchor).rows[0][0]
        except SqlProblem as problem:
            sandboxed = f"{type(problem).__name__}: {problem}"
        found[sql] = [raw, sandboxed]
    db.close()
    path.unlink()
    path.parent.rmdir()
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
