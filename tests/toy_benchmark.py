"""A built-in benchmark written the way a new one is: this file and one BUILTINS line (the tests add the line)."""

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from biarena.benchmarks import save_benchmark
from biarena.options import Options, takes
from biarena.records import Benchmark, DatabaseRef, Question


class TinyOptions(Options):
    """Options of the tiny benchmark."""

    questions: int = 2
    """How many questions."""


@takes(TinyOptions)
def build_tiny(target: Path, options: TinyOptions | None = None, *, on_progress: Any = None, **values: Any) -> None:
    """A tiny benchmark: counting questions over a one-table database."""
    chosen = TinyOptions.resolve(options, values, "benchmark 'tiny'")
    scratch = Path(tempfile.mkdtemp(prefix="tiny-"))
    with sqlite3.connect(scratch / "tiny.sqlite") as db:
        db.execute("CREATE TABLE t (n INTEGER)")
        db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(10)])
    questions = [
        Question(
            id=f"q{i}",
            text=f"How many rows above {i}?",
            database="tiny",
            gold_sql=[f"SELECT COUNT(*) FROM t WHERE n > {i}"],
        )
        for i in range(chosen.questions)
    ]
    bench = Benchmark(
        name="tiny", databases={"tiny": DatabaseRef(path=str(scratch / "tiny.sqlite"))}, questions=questions
    )
    try:
        save_benchmark(bench, target, overwrite=True)
    finally:
        shutil.rmtree(scratch)
