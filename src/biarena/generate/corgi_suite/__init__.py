"""The CORGI suite: simulated business databases for the ten verticals, with questions of CORGI's four types.

Type 1 (descriptive) questions have gold SQL, from forms over what each spec says its tables, segments, rules and
events mean (`descriptive`), worded as a manager would ask. Types 2-4 (`explanatory`, `predictive`,
`recommendational`) have reference answers from the simulator's rules, each with its evidence: the hidden
parameters and the queries whose rows support it.
"""

import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, Unpack

from biarena.benchmarks import save_benchmark
from biarena.db import open_database
from biarena.db.sql_text import compose
from biarena.errors import FormatError
from biarena.generate.corgi_suite.audit import leaks
from biarena.generate.corgi_suite.descriptive import vertical_descriptive
from biarena.generate.corgi_suite.explanatory import explanatory
from biarena.generate.corgi_suite.predictive import predictive
from biarena.generate.corgi_suite.recommendational import recommendational
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.synth import generate, verify, vertical_names, vertical_spec
from biarena.synth.writers import META_TABLE

KNOWLEDGE = """\
Each database simulates one business (its description comes with its schema). Timestamps are text
'YYYY-MM-DD HH:MM:SS'; the data end at the benchmark's current time. Amounts are in US dollars. Questions of
type 1 ask for facts in the data; type 2 asks why something happened; type 3 asks for a forecast; type 4 asks
for a recommendation. Answer from the data and say which numbers support the answer.
"""

MINIMUM_PER_TYPE = 30

Progress = Callable[[int, int, str, str], None]
"""Called as (verticals finished, verticals in all, vertical name, what is happening) while a suite builds."""


def _strip_metadata(path: Path) -> None:
    """Drop the generator's metadata (it holds the spec, and so the answers) from a benchmark database."""
    conn = sqlite3.connect(path)
    conn.execute(compose("DROP TABLE {table}", table=META_TABLE))
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def vertical_questions(name: str, path: Path) -> list[Question]:
    """All four types of question for one generated vertical database."""
    spec = vertical_spec(name)
    with open_database(path) as db:
        questions = [
            *vertical_descriptive(spec, db, name),
            *explanatory(spec, name),
            *predictive(spec, db, name),
            *recommendational(spec, db, name),
        ]
    for kind in ("type1", "type2", "type3", "type4"):
        count = sum(f"corgi:{kind}" in q.labels for q in questions)
        if count < MINIMUM_PER_TYPE:
            raise FormatError(f"vertical '{name}': only {count} questions of corgi:{kind} (need {MINIMUM_PER_TYPE})")
    return questions


def make_suite(
    work: Path,
    verticals: list[str] | None = None,
    *,
    scale: float = 1.0,
    seed: int = 0,
    on_progress: Progress | None = None,
) -> Benchmark:
    """Generate and verify each vertical's database in `work`, then ask its questions."""
    names = verticals or vertical_names()
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    tell = on_progress or (lambda *_: None)
    for number, name in enumerate(names, start=1):
        spec = vertical_spec(name)
        path = work / f"{name}.sqlite"
        tell(number - 1, len(names), name, f"generating its database (scale {scale:g})")
        rows = sum(generate(spec, path, scale=scale, seed=seed).values())
        tell(number - 1, len(names), name, f"verifying {rows:,} rows against its rules")
        failed = [c for c in verify(path) if not c.ok]
        if failed:
            details = "; ".join(f"{c.kind} '{c.name}': {c.detail}" for c in failed)
            raise FormatError(f"vertical '{name}' does not hold in the generated data: {details}")
        _strip_metadata(path)
        tell(number - 1, len(names), name, "writing questions")
        asked = vertical_questions(name, path)
        questions += asked
        tell(number, len(names), name, f"done: {rows:,} rows, {len(asked)} questions")
        databases[name] = DatabaseRef(path=str(path), description=spec.briefing())
    first = vertical_spec(names[0])
    benchmark = Benchmark(
        name="corgi-synth",
        description="CORGI's four question types (descriptive, explanatory, predictive, recommendational) over "
        f"simulated business databases: {', '.join(names)}.",
        knowledge=KNOWLEDGE,
        now=first.anchor,
        source_format="corgi-synth",
        databases=databases,
        questions=questions,
    )
    found = leaks(benchmark)
    if found:
        shown = ", ".join(f"{leak.question} ({leak.figure})" for leak in found[:5])
        raise FormatError(
            f"{len(found)} reference figures appear verbatim in what agents are shown, e.g. {shown}: "
            "move them from the spec's public briefing to its hidden description"
        )
    return benchmark


class SuiteOptions(TypedDict, total=False):
    """The options of make_suite after its work directory."""

    verticals: list[str] | None
    scale: float
    seed: int
    on_progress: Progress | None


def build(target: Path, **options: Unpack[SuiteOptions]) -> Benchmark:
    """Build the CORGI suite as a native benchmark directory at `target` (empty or absent)."""
    with tempfile.TemporaryDirectory(prefix="corgi-synth-") as work:
        benchmark = make_suite(Path(work), **options)
        save_benchmark(benchmark, target, overwrite=target.exists() and not any(target.iterdir()))
    return benchmark


__all__ = ["KNOWLEDGE", "build", "make_suite", "vertical_questions"]
