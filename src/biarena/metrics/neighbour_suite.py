"""neighbour_suite: K neighbour databases per benchmark database, for test-suite accuracy (Zhong et al. 2020).

A database a simulator built (bis-synth, corgi-synth) gets the same spec generated at other seeds. Any other SQLite
or DuckDB database gets fuzzed neighbours (`database_fuzzer`), of which the suite keeps those that tell the gold
queries apart from their near misses (`sql_mutations`), chosen greedily as the paper distils its suite. Each
neighbour has a twin with its rows stored in reverse order, on which a gold query must give the same answer (else the
data do not determine it). A suite is built once, seeded and deterministic, and cached under a fingerprint of what it
depends on.
"""

import hashlib
import json
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from biarena.benchmarks.builtin import cache_dir
from biarena.db import DatabasePool, QueryResult, SqlProblem
from biarena.db.dialect import dialect_of
from biarena.db.open_database import DEFAULT_FILE_ENGINE, file_engine
from biarena.metrics.columns import Tolerance
from biarena.metrics.database_fuzzer import fuzz_database, read_tables, reversed_twin
from biarena.metrics.execution_match import results_match
from biarena.metrics.sql_mutations import mutants, numbers_in
from biarena.records import Benchmark, Question

SUITE_VERSION = "1"
"""Bumped when the way neighbours are made changes: cached suites are then built again."""
CANDIDATES_PER_NEIGHBOUR = 3
"""Fuzzed candidates made per neighbour kept."""

Simulator = Callable[[Path, int], None]
"""Writes a database of a spec at a seed: `(path, seed)`."""


@dataclass(frozen=True)
class Neighbour:
    """One neighbour: a file per benchmark database, and each file's reversed twin."""

    databases: dict[str, str]
    twins: dict[str, str]


@dataclass
class NeighbourSuite:
    """K neighbours of a benchmark's databases, and how they were made."""

    fingerprint: str
    neighbours: list[Neighbour]
    methods: dict[str, str] = field(default_factory=dict)
    """Database -> 'simulator' or 'fuzzer'."""
    unsupported: dict[str, str] = field(default_factory=dict)
    """Database -> why it has no neighbours (its questions get no suite score)."""
    mutants: dict[str, list[int]] = field(default_factory=dict)
    """Fuzzed database -> [near misses of its gold that the suite tells apart, near misses tried]."""
    build_seconds: float = 0.0

    def to_json(self) -> str:
        """The suite's manifest."""
        return json.dumps(
            {
                "fingerprint": self.fingerprint,
                "neighbours": [{"databases": n.databases, "twins": n.twins} for n in self.neighbours],
                "methods": self.methods,
                "unsupported": self.unsupported,
                "mutants": self.mutants,
                "build_seconds": self.build_seconds,
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> "NeighbourSuite":
        """A suite from its manifest."""
        data = json.loads(text)
        neighbours = [Neighbour(n["databases"], n["twins"]) for n in data["neighbours"]]
        kept = (data["methods"], data["unsupported"], data["mutants"], data["build_seconds"])
        return cls(data["fingerprint"], neighbours, *kept)


def simulator_for(benchmark: Benchmark, database: str) -> Simulator | None:
    """The simulator that built `database`, when a built-in benchmark's generator did."""
    if benchmark.source_format == "bis-synth" and database in ("ads", "ops"):
        from biarena.generate.bis_synth.data import build_ads, build_ops

        return {"ads": build_ads, "ops": build_ops}[database]
    if benchmark.source_format == "corgi-synth":
        from biarena.synth import vertical_spec
        from biarena.synth.generator import generate

        try:
            spec = vertical_spec(database)
        except Exception:  # not one of the verticals: fuzzed like any database
            return None

        def build(path: Path, seed: int) -> None:
            generate(spec, path, scale=1.0, seed=seed)
            _strip_generator_tables(path)

        return build
    return None


def _strip_generator_tables(path: Path) -> None:
    from biarena.generate.corgi_suite import _strip_metadata

    _strip_metadata(path)


def _local_file(pool: DatabasePool, name: str) -> Path | None:
    location = pool.location(name)
    if "://" in location or location.startswith("sqlite:"):
        return None
    path = Path(location)
    if not path.is_file():
        return None
    engine = file_engine(path)
    if engine != DEFAULT_FILE_ENGINE:  # another engine claims it by its suffix or first bytes
        return path if dialect_of(engine).files is not None else None
    with path.open("rb") as handle:
        return path if handle.read(16) == b"SQLite format 3\x00" else None


def _fingerprint(benchmark: Benchmark, pool: DatabasePool, k: int, seed: int) -> str:
    digest = hashlib.sha256(f"{SUITE_VERSION}\0{benchmark.name}\0{benchmark.source_format}\0{k}\0{seed}".encode())
    for name in sorted(benchmark.databases):
        digest.update(name.encode())
        path = _local_file(pool, name)
        if path is not None:
            with path.open("rb") as handle:
                digest.update(hashlib.file_digest(handle, "sha256").digest())
    for question in benchmark.questions:
        digest.update(f"{question.database}\0{question.gold_sql}".encode())
    return digest.hexdigest()[:16]


def suite_for(
    benchmark: Benchmark,
    pool: DatabasePool,
    k: int,
    *,
    seed: int = 0,
    root: Path | None = None,
    tell: Callable[[str], None] | None = None,
) -> NeighbourSuite:
    """The benchmark's suite of `k` neighbours: read from the cache, else built there now."""
    fingerprint = _fingerprint(benchmark, pool, k, seed)
    home = (root or cache_dir() / "suites") / fingerprint
    manifest = home / "suite.json"
    if manifest.is_file():
        return NeighbourSuite.from_json(manifest.read_text(encoding="utf-8"))
    started = time.perf_counter()
    # each build in a folder of its own: two processes building the same suite do not write into each other's
    staging = home.with_name(f".{fingerprint}.{uuid.uuid4().hex[:8]}.building")
    staging.mkdir(parents=True)
    suite = NeighbourSuite(fingerprint, [Neighbour({}, {}) for _ in range(k)])
    for name in sorted(benchmark.databases):
        simulator = simulator_for(benchmark, name)
        source = _local_file(pool, name)
        if simulator is not None:
            suite.methods[name] = "simulator"
            for i in range(k):
                simulator(staging / f"{name}.n{i}.sqlite", seed * 1000 + 1 + i)
        elif source is not None:
            suite.methods[name] = "fuzzer"
            suite.mutants[name] = _distil(benchmark, pool, name, source, staging, k, seed, tell)
        else:
            suite.unsupported[name] = "neighbours are made for SQLite and DuckDB files only"
            continue
        if tell:
            tell(f"{name}: {k} neighbours ({suite.methods[name]})")
        for i in range(k):
            suffix = source.suffix if suite.methods[name] == "fuzzer" and source is not None else ".sqlite"
            path = staging / f"{name}.n{i}{suffix}"
            reversed_twin(path, staging / f"{name}.n{i}.twin{suffix}")
            suite.neighbours[i].databases[name] = str(home / path.name)
            suite.neighbours[i].twins[name] = str(home / f"{name}.n{i}.twin{suffix}")
    suite.build_seconds = time.perf_counter() - started
    (staging / "suite.json").write_text(suite.to_json(), encoding="utf-8")
    try:
        staging.rename(home)
    except OSError:  # another process finished the same suite first: its files are the same
        shutil.rmtree(staging, ignore_errors=True)
    return suite


def _domain(source: Path) -> Callable[[str], list]:
    """Up to 20 distinct values of each column, by column name, across the database's tables."""
    values: dict[str, list] = {}
    shapes, rows = read_tables(source)
    for shape in shapes:
        for index, column in enumerate(shape.columns):
            seen = values.setdefault(column.lower(), [])
            for row in rows[shape.name]:
                if len(seen) >= 20:
                    break
                if row[index] is not None and row[index] not in seen:
                    seen.append(row[index])
    return lambda column: values.get(column.lower(), [])


def _outcome(pool: DatabasePool, benchmark: Benchmark, question: Question, name: str, sql: str) -> object:
    db = pool.get(name)
    try:
        statement = db.prepare_statement(sql, pool.source_dialect(name), benchmark.anchor_for(question))
        return db.execute(statement.text, prepared=statement)
    except SqlProblem as problem:
        return problem.kind


def _differs(a: object, b: object) -> bool:
    if isinstance(a, QueryResult) and isinstance(b, QueryResult):
        return not results_match(a, b, tolerance=Tolerance())
    return isinstance(a, QueryResult) != isinstance(b, QueryResult)


def _distil(
    benchmark: Benchmark,
    pool: DatabasePool,
    name: str,
    source: Path,
    staging: Path,
    k: int,
    seed: int,
    tell: Callable[[str], None] | None,
) -> list[int]:
    """Fuzz candidates for database `name` and keep the `k` that tell most near misses of its gold apart;
    returns [near misses told apart by the kept ones, near misses tried]."""
    domain = _domain(source)
    questions = [q for q in benchmark.questions if q.database == name and q.gold_sql]
    pairs = [(q, g, m) for q in questions for g in q.gold_sql[:1] for m in mutants(g, domain=domain, seed=seed)]
    literals = sorted({n for q in questions for g in q.gold_sql for n in numbers_in(g, pool.source_dialect(name))})
    candidates = []
    for c in range(max(k, k * CANDIDATES_PER_NEIGHBOUR)):
        path = staging / f"{name}.c{c}{source.suffix}"
        fuzz_database(source, path, seed * 1000 + 1 + c, literals)
        candidates.append(path)
    kills: list[set[int]] = []
    for c, path in enumerate(candidates):
        candidate = DatabasePool(benchmark, overrides={name: str(path)}, limits=pool.limits)
        try:
            golds: dict[str, object] = {}
            killed = set()
            for index, (question, gold, mutant) in enumerate(pairs):
                if gold not in golds:
                    golds[gold] = _outcome(candidate, benchmark, question, name, gold)
                if _differs(golds[gold], _outcome(candidate, benchmark, question, name, mutant)):
                    killed.add(index)
            kills.append(killed)
        finally:
            candidate.close()
        if tell:
            tell(f"{name}: candidate {c + 1}/{len(candidates)} tells apart {len(kills[-1])}/{len(pairs)} near misses")
    chosen: list[int] = []
    covered: set[int] = set()
    while len(chosen) < k:
        left = [c for c in range(len(candidates)) if c not in chosen]
        best = max(left, key=lambda c: (len(kills[c] - covered), -c))
        chosen.append(best)
        covered |= kills[best]
    for i, c in enumerate(chosen):
        candidates[c].rename(staging / f"{name}.n{i}{source.suffix}")
    for path in candidates:
        path.unlink(missing_ok=True)
    return [len(covered), len(pairs)]
