"""Gold audit: problems in a benchmark's gold SQL that published benchmarks leave for users to find."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import DatabasePool, QueryResult, SqlProblem
from biarena.metrics.context import orders_rows
from biarena.metrics.execution_match import results_match
from biarena.records import Benchmark, Question

KINDS: dict[str, str] = {
    "gold_fails": "gold SQL fails to run",
    "gold_empty": "gold returns no rows (or only NULLs)",
    "string_aggregate": "aggregate over a string literal, e.g. avg('col')",
    "limit_ties": "LIMIT cuts through tied values",
    "order_ties": "ORDER BY keys tie for rows that differ: the answer's row order is not determined",
    "order_nulls": "an ORDER BY key holds NULL without NULLS FIRST/LAST: engines place NULLs differently",
    "top_without_order": "a 'top N' question whose gold has no ORDER BY",
    "phrasing_disagreement": "phrasings of one question have different gold results",
    "clock_dependent": "results change with the clock but no clock anchor is set",
}
"""Problem kinds the audit reports, with what each means."""

_TOP_WORDS = re.compile(
    r"\b(top|bottom|highest|lowest|most|least|best|worst|largest|smallest|biggest)\b|最高|最低|最多|最少|前\s*\d+|排名",
    re.IGNORECASE,
)
_EXPLICIT_COUNT = re.compile(r"\b(top|bottom|first|last)\s+\d+\b|前\s*\d+|\b\d+\s+\w+\s+with the", re.IGNORECASE)
_VALUE_AGGREGATES = (exp.Avg, exp.Sum, exp.Min, exp.Max)


@dataclass(frozen=True)
class Finding:
    """One problem with one question's gold."""

    question_id: str
    kind: str
    detail: str


def _normal_text(text: str) -> str:
    return re.sub(r"[\s\W_]+", " ", text.lower()).strip()


def _parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None


def string_aggregates(tree: exp.Expression) -> list[str]:
    """Aggregates (AVG, SUM, MIN, MAX) whose argument is a string literal."""
    found = []
    for node in tree.find_all(*_VALUE_AGGREGATES):
        argument = node.this
        if isinstance(argument, exp.Literal) and argument.is_string:
            found.append(node.sql())
    return found


def _order_keys(select: exp.Select) -> tuple[exp.Select, list[int]] | None:
    """A copy of `select` whose ORDER BY keys are all output columns, with their positions."""
    probe = select.copy()
    outputs = probe.expressions
    positions = []
    for ordered in probe.args["order"].expressions:
        key = ordered.this
        index = None
        if isinstance(key, exp.Literal) and key.is_int:
            index = int(key.this) - 1
        elif isinstance(key, exp.Column) and not key.table:
            index = next((i for i, e in enumerate(outputs) if e.alias_or_name == key.name), None)
        if index is None:
            index = next((i for i, e in enumerate(outputs) if e.unalias() == key), None)
        if index is None:
            if probe.args.get("distinct"):
                return None
            probe.select(exp.alias_(key.copy(), f"audit_key_{len(positions)}"), copy=False)
            index = len(probe.expressions) - 1
        positions.append(index)
    return probe, positions


def limit_cuts_ties(tree: exp.Expression, run: Callable[[str], QueryResult], dialect: str) -> str | None:
    """Explain how the top-level LIMIT cuts through tied ORDER BY keys, or None when it does not."""
    if not isinstance(tree, exp.Select) or not tree.args.get("limit") or not tree.args.get("order"):
        return None
    limit = tree.args["limit"].expression
    if not (isinstance(limit, exp.Literal) and limit.is_int):
        return None
    k = int(limit.this)
    planned = _order_keys(tree)
    if planned is None or k < 1:
        return None
    probe, positions = planned
    probe.set("limit", exp.Limit(expression=exp.Literal.number(k + 1)))
    rows = run(probe.sql(dialect=dialect)).rows
    if len(rows) <= k:
        return None
    last, next_row = rows[k - 1], rows[k]
    if all(last[p] == next_row[p] for p in positions):
        width = len(tree.expressions)
        tied = [r[:width] for r in rows if all(r[p] == last[p] for p in positions)]
        return (
            f"row {k} and row {k + 1} tie on the ORDER BY key(s); LIMIT {k} keeps an arbitrary one; "
            f"tying rows: {_shown_rows(tied)}"
        )
    return None


def _shown_rows(rows: list[tuple], most: int = 4) -> str:
    """Rows as a reader sees them, the first `most` of them."""
    shown = ", ".join("(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")" for row in rows[:most])
    return shown + (f" and {len(rows) - most} more" if len(rows) > most else "")


def order_undetermined(
    tree: exp.Expression, run: Callable[[str], QueryResult], dialect: str, sql: str
) -> list[tuple[str, str]]:
    """(kind, detail) of what leaves the top-level ORDER BY's row order open: keys that tie for rows that differ
    (`order_ties`), keys holding NULL where `sql` does not say NULLS FIRST/LAST (`order_nulls`); each detail names
    the rows."""
    if not isinstance(tree, exp.Select) or not tree.args.get("order"):
        return []
    planned = _order_keys(tree)
    if planned is None:
        return []
    probe, positions = planned
    rows = run(probe.sql(dialect=dialect)).rows
    width = len(tree.expressions)
    groups: list[list[tuple]] = []
    for before, after in pairwise(rows):
        if all(before[p] == after[p] for p in positions) and before[:width] != after[:width]:
            if groups and groups[-1][-1] == before[:width]:
                groups[-1].append(after[:width])
            else:
                groups.append([before[:width], after[:width]])
    found = []
    if groups:
        detail = f"{len(groups)} group(s) of rows tie on the ORDER BY key(s), e.g. {_shown_rows(groups[0])}"
        found.append(("order_ties", detail))
    nulls = [r[:width] for r in rows if any(r[p] is None for p in positions)]
    if nulls and not _NULLS_WRITTEN.search(sql):
        found.append(("order_nulls", f"{len(nulls)} row(s) with a NULL ORDER BY key, e.g. {_shown_rows(nulls, 2)}"))
    return found


_NULLS_WRITTEN = re.compile(r"\bNULLS\s+(FIRST|LAST)\b", re.IGNORECASE)


def audit_benchmark(
    benchmark: Benchmark,
    databases: DatabasePool,
    *,
    shift: timedelta = timedelta(days=7),
    on_question: Callable[[int, str], None] | None = None,
) -> list[Finding]:
    """Check every question's gold SQL and return the problems found.

    `on_question(done, question id)` is called after each question (for progress)."""
    findings: list[Finding] = []
    first_results: dict[str, QueryResult | None] = {}
    for done, question in enumerate(benchmark.questions, 1):
        findings.extend(_audit_question(benchmark, databases, question, first_results, shift))
        if on_question is not None:
            on_question(done, question.id)
    findings.extend(_phrasings(benchmark, databases, first_results))
    return findings


def _audit_question(
    benchmark: Benchmark, databases: DatabasePool, question: Question, first: dict, shift: timedelta
) -> list[Finding]:
    out: list[Finding] = []
    db = databases.get(question.database)
    dialect = databases.source_dialect(question.database)
    anchor = benchmark.anchor_for(question)
    first[question.id] = None

    def run(sql: str, now: datetime | None = anchor) -> QueryResult:
        return db.execute(sql, dialect=dialect, now=now)

    if not question.gold_sql:
        return out
    for index, sql in enumerate(question.gold_sql):
        label = f"gold {index + 1}: " if len(question.gold_sql) > 1 else ""
        tree = _parse(sql, dialect)
        if tree is not None:
            for text in string_aggregates(tree):
                out.append(Finding(question.id, "string_aggregate", f"{label}{text} aggregates a constant string"))
        try:
            result = run(sql)
        except SqlProblem as problem:
            out.append(Finding(question.id, "gold_fails", f"{label}{problem.kind}: {problem}"))
            continue
        if index == 0:
            first[question.id] = result
        if not result.rows:
            out.append(Finding(question.id, "gold_empty", f"{label}no rows"))
        elif all(v is None for row in result.rows for v in row):
            out.append(Finding(question.id, "gold_empty", f"{label}only NULL values"))
        if tree is None:
            continue
        has_order = tree.args.get("order") is not None
        if (
            _TOP_WORDS.search(question.text)
            and not has_order
            and (tree.args.get("limit") is not None or _EXPLICIT_COUNT.search(question.text))
        ):
            out.append(Finding(question.id, "top_without_order", f"{label}asks for a ranking; gold has no ORDER BY"))
        try:
            tie = limit_cuts_ties(tree, run, dialect)
        except SqlProblem:
            tie = None
        if tie:
            out.append(Finding(question.id, "limit_ties", label + tie))
        try:
            unsettled = order_undetermined(tree, run, dialect, sql)
        except SqlProblem:
            unsettled = []
        out.extend(Finding(question.id, kind, label + detail) for kind, detail in unsettled)
        if anchor is None:
            moved = _moves_with_clock(run, sql, shift)
            if moved:
                out.append(Finding(question.id, "clock_dependent", label + moved))
    return out


def _moves_with_clock(run: Callable[..., QueryResult], sql: str, shift: timedelta) -> str | None:
    now = datetime.now().replace(microsecond=0)
    try:
        today, earlier = run(sql, now), run(sql, now - shift)
    except SqlProblem:
        return None
    if today.rows != earlier.rows:
        return f"results differ between now and {shift.days} days ago; set the benchmark's 'now'"
    return None


def _phrasings(benchmark: Benchmark, databases: DatabasePool, first: dict) -> list[Finding]:
    groups: dict[tuple[str, str], list[Question]] = {}
    for question in benchmark.questions:
        key = ("group", question.group) if question.group else ("text", _normal_text(question.text))
        groups.setdefault((question.database, *key), []).append(question)  # type: ignore[arg-type]
    out = []
    for members in groups.values():
        if len(members) < 2:
            continue
        reference = members[0]
        base = first.get(reference.id)
        if base is None or not reference.gold_sql:
            continue
        dialect = databases.source_dialect(reference.database)
        ordered = orders_rows(reference.gold_sql[0], dialect)
        for other in members[1:]:
            result = first.get(other.id)
            if result is None:
                continue
            if not results_match(result, base, ordered=ordered):
                out.append(
                    Finding(
                        other.id,
                        "phrasing_disagreement",
                        f"same question as {reference.id} but its gold returns different rows",
                    )
                )
    return out
