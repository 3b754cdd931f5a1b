"""audit: the CORGI suite's quality figures, and leaks: reference figures agents could read in their briefing."""

import re
from dataclasses import dataclass

from biarena.db import Database, open_database
from biarena.generate.corgi_suite.common import lit, select_from, sql
from biarena.records import Benchmark, Question

_FIGURE = re.compile(r"(?<![\w.±])[+-]?\d[\d,]*(?:\.\d+)?%|(?<![\w.])\d+\.\d+(?![\d])")
"""Percentages (with their sign, if any) and decimal numbers such as multipliers; bare integers are too common."""


@dataclass(frozen=True)
class Leak:
    """A reference figure an agent could copy from its briefing instead of finding it in the data."""

    question: str
    figure: str


def figures(text: str) -> set[str]:
    """The percentages and decimal figures in a text."""
    return set(_FIGURE.findall(text))


def shown(benchmark: Benchmark, database: str) -> str:
    """Everything an agent is told about a database: the benchmark's knowledge and the database's description."""
    ref = benchmark.databases.get(database)
    return f"{benchmark.knowledge or ''}\n{(ref.description if ref else '') or ''}"


def leaks(benchmark: Benchmark) -> list[Leak]:
    """Figures of type 2-4 references that appear verbatim in what agents see of the same database."""
    out = []
    for question in benchmark.questions:
        if not question.reference_answer:
            continue
        public = shown(benchmark, question.database)
        for figure in sorted(figures(question.reference_answer)):
            if re.search(rf"(?<![\w.]){re.escape(figure)}(?![\d])", public):
                out.append(Leak(question.id, figure))
    return out


@dataclass
class Audit:
    """The suite's own quality figures."""

    counts: dict[str, dict[str, int]]
    """vertical -> corgi:typeN -> questions."""
    forms: dict[str, int]
    """corgi:typeN -> distinct question forms across the suite."""
    leaks: list[Leak]
    naive_hits: int
    """Forecasts (counts and amounts over a period) that the same period a year earlier already gets within 10% of."""
    naive_total: int
    unanswerable: list[str]
    """Questions whose gold returns no rows, or whose reference's supporting queries find none."""
    jargon: list[str]
    """Questions that name a column, quote a literal code or state an exact date instead of a manager's words."""

    @property
    def naive_rate(self) -> float:
        """Share of forecasts a naive same-period-last-year guess gets within 10%."""
        return self.naive_hits / self.naive_total if self.naive_total else 0.0


TYPES = ("corgi:type1", "corgi:type2", "corgi:type3", "corgi:type4")
NAIVE_TOLERANCE = 0.10
"""A naive forecast this close to the reference counts as a hit."""


_JARGON = re.compile(r"\w_\w|(?<!\w)'\w[^']*'|\d{4}-\d{2}-\d{2}")
"""A column name (snake_case), a quoted literal code, an ISO date."""


def jargon(text: str) -> bool:
    """Whether a question names a column, quotes a literal code or states an exact date."""
    return bool(_JARGON.search(text))


def _kind(labels: list[str]) -> str:
    return next((label for label in labels if label in TYPES), "")


def form_of(labels: list[str]) -> str:
    """A question's form: its `corgi:form:` label, else (factory questions) its other labels."""
    named = [label for label in labels if label.startswith("corgi:form:")]
    return named[0] if named else "|".join(sorted(label for label in labels if not label.startswith("corgi:")))


def _answerable(conn: Database, question: Question) -> bool:
    """A gold query returns rows; a reference's supporting queries each return rows (else its tables have rows)."""
    if question.gold_sql:
        return bool(conn.execute(question.gold_sql[0], now=question.now).rows)
    support = (question.evidence or {}).get("support_sql") or []
    if support:
        return all(conn.execute(sql, now=question.now).rows for sql in support)
    return all(conn.execute(sql(select_from(t, lit(1)).limit(1))).rows for t in question.tables)


def _naive_hit(conn: Database, question: Question) -> bool | None:
    """Whether the same period a year earlier is within 10% of a forecast's figure; None when it has no naive twin."""
    evidence = question.evidence or {}
    expected, naive_sql = evidence.get("expected"), evidence.get("naive_sql")
    if not naive_sql or not isinstance(expected, int | float) or expected <= 0:
        return None
    naive = conn.execute(naive_sql, now=question.now).rows[0][0] or 0
    return abs(float(naive) / expected - 1) <= NAIVE_TOLERANCE


def audit(benchmark: Benchmark) -> Audit:
    """Questions per type per vertical, distinct forms, leaks, the naive forecast's hit rate, answerability, and
    questions not in a manager's words."""
    counts: dict[str, dict[str, int]] = {name: dict.fromkeys(TYPES, 0) for name in benchmark.databases}
    forms: dict[str, set[str]] = {kind: set() for kind in TYPES}
    hits = total = 0
    unanswerable: list[str] = []
    worded: list[str] = []
    connections = {name: open_database(benchmark.database_location(name)) for name in benchmark.databases}
    try:
        for question in benchmark.questions:
            kind = _kind(question.labels)
            if not kind:
                continue
            counts[question.database][kind] += 1
            forms[kind].add(form_of(question.labels))
            conn = connections[question.database]
            if not _answerable(conn, question):
                unanswerable.append(question.id)
            if jargon(question.text):
                worded.append(question.id)
            hit = _naive_hit(conn, question) if kind == "corgi:type3" else None
            if hit is not None:
                total += 1
                hits += hit
    finally:
        for conn in connections.values():
            conn.close()
    return Audit(counts, {k: len(v) for k, v in forms.items()}, leaks(benchmark), hits, total, unanswerable, worded)
