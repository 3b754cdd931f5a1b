"""Catalog: the systems an arena compares (served runs and submissions), their answers and automatic scores."""

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from biarena.errors import UsageError
from biarena.records import Answer, Question, RunSpec
from biarena.report.auto_scores import auto_scores
from biarena.report.run_data import RunData, label_runs
from biarena.votes.leaderboard import Contender

MODEL_WORDS = (
    "openai", "chatgpt", "gpt", "anthropic", "claude", "gemini", "llama", "mistral", "mixtral", "qwen", "deepseek",
    "gemma", "vicuna", "chatglm", "baichuan", "doubao",
)
"""Model and vendor names hidden in every answer shown blind: a self-introduction must not give a system away."""


@dataclass
class ArenaSystem:
    """One system in the arena: its run's answers by question id and its automatic scores."""

    name: str
    path: Path
    spec: RunSpec
    answers: dict[str, Answer]
    auto: dict[str, float | None]
    """Automatic scores: the metrics' headline scores (AUTO_SCORES) and each headline score of the run's other
    scorers (judges, scorers registered since)."""
    submitted: bool = False
    identifiers: set[str] = field(default_factory=set)
    """Words that would tell this system apart if shown: names, model strings, file names."""

    @property
    def contender(self) -> Contender:
        """The system as a leaderboard contender."""
        return Contender(self.name, self.spec.run_id, dict(self.auto), self.submitted)


def _identifiers(run: RunData, name: str) -> set[str]:
    words = {name, run.label, run.path.name, run.path.stem, run.spec.system}
    models = {run.spec.model} | {a.system.model for a in run.answers} | {a.system.agent for a in run.answers}
    options = {str(v) for v in run.spec.options.values() if isinstance(v, str)}
    for value in models | options:
        if not value:
            continue
        words.update((value, Path(value).name))
        parts = [p for p in re.split(r"[:/@\\\s]+", value) if len(p) >= 3]
        # a model string's every part names it ("openai", "gpt-4o"); an option's plain words may be anyone's
        words.update(p for p in parts if value in models or not p.isalpha())
    for label in (run.label, name):
        # a label's parts that read like identifiers ("gpt-4o", "qwen2.5"), not its plain words ("Analyst")
        words.update(
            part for part in re.split(r"[\s()\[\],#=]+", label) if len(part) >= 3 and not part.isalpha()
        )
    return {w for w in words if w and len(w) >= 2}


def system_from_run(run: RunData, name: str, *, submitted: bool = False) -> ArenaSystem:
    """An arena system from a read run; its automatic scores are the means `biarena show` reports."""
    return ArenaSystem(
        name=name,
        path=run.path,
        spec=run.spec,
        answers={a.question_id: a for a in run.answers},
        auto=auto_scores(run),
        submitted=submitted,
        identifiers=_identifiers(run, name),
    )


class Catalog:
    """Systems by name and the questions of the benchmarks they answer; safe to grow while serving."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.systems: dict[str, ArenaSystem] = {}
        self.questions: dict[tuple[str, str], Question] = {}
        self.benchmark_refs: dict[str, str] = {}
        """Benchmark name -> how the served runs name it (a directory or a built-in name)."""
        self.fingerprints: dict[str, dict[str, str]] = {}
        """Benchmark name -> database checksums the served runs were made on."""
        self.db_overrides: dict[str, dict[str, str] | None] = {}
        """Benchmark name -> the server databases the served runs read (`run --db-url`), if any."""
        self._pattern_terms: frozenset[str] = frozenset()

    @classmethod
    def from_runs(cls, paths: list[Path]) -> "Catalog":
        """Read the served runs (at least two systems to compare, each with a distinct label)."""
        if not paths:
            raise UsageError("give the runs to compare with --runs RUN (at least two)")
        runs = [RunData.read(Path(p)) for p in paths]
        label_runs(runs)
        catalog = cls()
        for run in runs:
            benchmark = run.spec.benchmark_name
            catalog.benchmark_refs.setdefault(benchmark, run.spec.benchmark)
            catalog.db_overrides.setdefault(benchmark, run.spec.options.get("db_urls"))
            if run.spec.fingerprint is not None:
                catalog.fingerprints.setdefault(benchmark, dict(run.spec.fingerprint.databases))
            for question in run.questions:
                catalog.questions.setdefault((benchmark, question.id), question)
            catalog.add(system_from_run(run, run.label))
        return catalog

    def add(self, system: ArenaSystem) -> None:
        """Add a system (a submission joins while the arena serves)."""
        with self._lock:
            self.systems = {**self.systems, system.name: system}
            self._pattern_terms = frozenset()

    def benchmark_of(self, system: str) -> str:
        """The benchmark name a system's run is on."""
        return self.systems[system].spec.benchmark_name

    def redaction_terms(self) -> frozenset[str]:
        """Every system's identifying words and the well-known model names: hidden on both sides alike, so what
        is hidden says nothing about which side it was."""
        with self._lock:
            if not self._pattern_terms:
                terms = set(MODEL_WORDS)
                for system in self.systems.values():
                    terms |= system.identifiers
                self._pattern_terms = frozenset(terms)
            return self._pattern_terms
