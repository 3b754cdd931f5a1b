"""execute_audit: the audit workflow (`biarena audit BENCH`): every gold query of a benchmark run and checked."""

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.db.overrides import db_overrides, sandbox_limits
from biarena.events import EventHandler, Stage, ignore
from biarena.metrics.gold_audit import KINDS, Finding, audit_benchmark
from biarena.records import Benchmark
from biarena.settings import Settings


class AuditSettings(Settings):
    """An audit of a benchmark's gold SQL, on its own databases or servers."""

    benchmark: str
    """Benchmark directory or built-in name."""
    db_url: list[str] | None = None
    timeout: float = Field(default=30.0, ge=0.01, json_schema_extra={"flag": "--timeout"})
    sandbox: list[str] | None = None
    allow_superuser: bool = False


@dataclass(frozen=True)
class AuditResult:
    """What the audit found: the benchmark, how many of its questions have gold SQL, and the findings."""

    benchmark: Benchmark
    with_gold: int
    findings: list[Finding]

    def note(self) -> str | None:
        """Why nothing was audited (no question has gold SQL), else None."""
        if self.with_gold:
            return None
        count = len(self.benchmark.questions)
        return f"nothing to audit: none of the {count} questions of {self.benchmark.name} has gold SQL"

    def as_json(self) -> dict[str, Any]:
        """The findings as `audit --json` prints them."""
        payload: dict[str, Any] = {
            "benchmark": self.benchmark.name,
            "questions": len(self.benchmark.questions),
            "with_gold": self.with_gold,
        }
        note = self.note()
        if note is not None:
            return {**payload, "problems": 0, "findings": [], "note": note}
        counts = Counter(f.kind for f in self.findings)
        return {
            **payload,
            "problems": len(self.findings),
            "by_kind": {kind: counts.get(kind, 0) for kind in KINDS},
            "findings": [f.__dict__ for f in self.findings],
        }


def execute_audit(settings: AuditSettings, on_event: EventHandler = ignore) -> AuditResult:
    """Run and check every gold query of the benchmark (nothing is run when no question has gold SQL).

    Reports a `Stage` as each question's gold is checked."""
    benchmark = resolve_benchmark(settings.benchmark)
    with_gold = sum(1 for q in benchmark.questions if q.gold_sql)
    if not with_gold:
        return AuditResult(benchmark, 0, [])
    pool = DatabasePool(
        benchmark,
        overrides=db_overrides(settings.db_url, benchmark),
        limits=sandbox_limits(settings.sandbox, settings.timeout),
        allow_superuser=settings.allow_superuser,
    )
    try:
        pool.open_all()
        total = len(benchmark.questions)
        findings = audit_benchmark(
            benchmark, pool, on_question=lambda done, qid: on_event(Stage(done, total, qid, "gold checked"))
        )
    finally:
        pool.close()
    return AuditResult(benchmark, with_gold, findings)
