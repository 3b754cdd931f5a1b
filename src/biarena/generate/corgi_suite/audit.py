"""audit: the CORGI suite's quality figures, and leaks: reference figures agents could read in their briefing."""

import calendar
import re
from dataclasses import dataclass

from biarena.db import open_database
from biarena.records import Benchmark
from biarena.synth import vertical_spec

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
    """Count forecasts that last year's same month already gets within 10% of."""
    naive_total: int
    unanswerable: list[str]
    """Questions whose gold returns no rows, or whose reference rests on tables with no rows."""

    @property
    def naive_rate(self) -> float:
        """Share of count forecasts a naive same-month-last-year guess gets within 10%."""
        return self.naive_hits / self.naive_total if self.naive_total else 0.0


TYPES = ("corgi:type1", "corgi:type2", "corgi:type3", "corgi:type4")
_FORECAST = re.compile(r"How many .+ should we expect in (\w+) (\d{4})\?")


def _kind(labels: list[str]) -> str:
    return next((label for label in labels if label in TYPES), "")


def form_of(labels: list[str]) -> str:
    """A question's form: its `corgi:form:` label, else (factory questions) its other labels."""
    named = [label for label in labels if label.startswith("corgi:form:")]
    return named[0] if named else "|".join(sorted(label for label in labels if not label.startswith("corgi:")))


def audit(benchmark: Benchmark) -> Audit:
    """Questions per type per vertical, distinct forms, leaks, the naive forecast's hit rate, answerability."""
    counts: dict[str, dict[str, int]] = {name: dict.fromkeys(TYPES, 0) for name in benchmark.databases}
    forms: dict[str, set[str]] = {kind: set() for kind in TYPES}
    hits = total = 0
    unanswerable: list[str] = []
    connections = {name: open_database(benchmark.database_location(name)) for name in benchmark.databases}
    try:
        for question in benchmark.questions:
            kind = _kind(question.labels)
            if not kind:
                continue
            counts[question.database][kind] += 1
            forms[kind].add(form_of(question.labels))
            conn = connections[question.database]
            if question.gold_sql:
                if not conn.execute(question.gold_sql[0], now=question.now).rows:
                    unanswerable.append(question.id)
            elif any(not conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').rows for t in question.tables):
                unanswerable.append(question.id)
            match = _FORECAST.fullmatch(question.text)
            expected = re.match(r"About ([\d,]+)", question.reference_answer or "")
            if kind == "corgi:type3" and match and expected and question.tables:
                month = list(calendar.month_name).index(match.group(1))
                stamp = vertical_spec(question.database).tables[question.tables[0]].stamp
                naive = conn.execute(
                    f'SELECT count(*) FROM "{question.tables[0]}" WHERE substr("{stamp}", 1, 7) = '
                    f"'{int(match.group(2)) - 1}-{month:02d}'"
                ).rows[0][0]
                reference = float(expected.group(1).replace(",", ""))
                total += 1
                hits += reference > 0 and abs(naive / reference - 1) <= 0.10
    finally:
        for conn in connections.values():
            conn.close()
    return Audit(counts, {k: len(v) for k, v in forms.items()}, leaks(benchmark), hits, total, unanswerable)
