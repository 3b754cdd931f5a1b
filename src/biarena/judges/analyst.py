"""Good answers written as an analyst would, for `judge check`: a plan, figures from the answer's own queries with
their provenance, the reference's conclusion, and a recommendation where the question asks for one.

The queries describe the table the question is about: its size, its busiest and quietest months (or values of a
category column when it has no date), and its latest months. Every figure in the prose is read from those results,
so a degraded copy whose figures or results disagree can only be told apart by reading the data.
"""

import re
from dataclasses import dataclass, replace

from biarena.agents import AgentEnv, run_step
from biarena.db.sql_text import Literal, Sql, compose, quote_identifier
from biarena.records import Question, Step

HIDDEN = "Evidence (hidden parameters):"
_TOLERANCE = re.compile(r"\s*\(tolerance [^)]*\)")
_DATE = re.compile(r"^\d{4}-\d{2}")
_ID = re.compile(r"(?:^id$|_id$|^id_)", re.IGNORECASE)
GROUPS = 40
"""Most distinct values a category column may have to be counted by value."""


@dataclass(frozen=True)
class Evidence:
    """The queries an answer ran and the figures read from them."""

    table: str
    by: str
    """What the rows are counted by: `month` or a category column's name."""
    dated: bool
    steps: list[Step]
    total: int
    top: list[tuple[str, int]]
    """(value, rows) of the busiest values, busiest first."""
    low: list[tuple[str, int]]
    """(value, rows) of the quietest values, quietest first."""
    latest: list[tuple[str, int]]
    """(month, rows) of the latest months, latest first (dated tables only)."""


def reference_parts(reference: str) -> tuple[str, str | None]:
    """The reference's finding (what an answer states) and its hidden evidence (None when it has none)."""
    claim, _, hidden = reference.partition(HIDDEN)
    return _TOLERANCE.sub("", claim).strip(), (hidden.strip() or None)


def _grouping(question: Question, env: AgentEnv, table: str) -> tuple[Sql, str, bool] | None:
    """The SQL expression rows are counted by, its name, and whether it is a month; None without one."""
    _, result = run_step(env, question, compose("SELECT * FROM {table} LIMIT 50", table=table))
    if result is None or not result.rows:
        return None
    for i, column in enumerate(result.columns):
        value = result.rows[0][i]
        if isinstance(value, str) and _DATE.match(value):
            return compose("SUBSTR(CAST({column} AS TEXT), 1, 7)", column=column), "month", True
    for i, column in enumerate(result.columns):
        values = {row[i] for row in result.rows}
        if all(isinstance(v, str) for v in values) and 1 < len(values) <= 10 and not _ID.search(column):
            return quote_identifier(column), column, False
    return None


def _pairs(step: Step) -> list[tuple[str, int]]:
    return [(str(row[0]), int(row[1])) for row in step.preview if row[0] is not None and row[1] is not None]


def gather(question: Question, env: AgentEnv, *, year: bool = False) -> Evidence | None:
    """Run the answer's queries on the first table of the question that can be counted by month or category;
    `year`: restrict every query to the latest year of data (a plausible but wrong reading of "in all")."""
    for table in [t for t in question.tables if t and t != "None"]:
        grouping = _grouping(question, env, table)
        if grouping is None:
            continue
        key, by, dated = grouping
        if year and not dated:
            return None
        where = Sql("")
        if year:
            _, result = run_step(env, question, compose("SELECT MAX({key}) FROM {table}", key=key, table=table))
            if result is None or not result.rows or result.rows[0][0] is None:
                return None
            # the agent's queries are shown as it wrote them: the year is written into the text, not bound
            where = compose(" WHERE SUBSTR({key}, 1, 4) = {year}", key=key, year=Literal(str(result.rows[0][0])[:4]))
        source = compose("{table}{where}", table=table, where=where)
        # `month` and `value` are plain words, written unquoted
        alias = Sql(by if dated else "value")
        group = compose(
            "SELECT {key} AS {alias}, COUNT(*) AS row_count FROM {source} GROUP BY 1",
            key=key,
            alias=alias,
            source=source,
        )
        queries = [
            (compose("SELECT COUNT(*) AS row_count FROM {source}", source=source), f"rows of {table}"),
            (compose("{group} ORDER BY row_count DESC LIMIT 3", group=group), f"busiest {by} values of {table}"),
            (compose("{group} ORDER BY row_count ASC LIMIT 3", group=group), f"quietest {by} values of {table}"),
        ]
        if dated:
            queries.append((compose("{group} ORDER BY 1 DESC LIMIT 3", group=group), f"latest months of {table}"))
        steps = [run_step(env, question, sql, purpose=purpose)[0] for sql, purpose in queries]
        if not all(s.ok and s.preview for s in steps):
            continue
        top, low = _pairs(steps[1]), _pairs(steps[2])
        latest = _pairs(steps[3]) if dated else []
        if len(top) < 2 or len(low) < 2 or (dated and len(latest) < 3) or top[0][0] == low[0][0]:
            continue
        return Evidence(table, by, dated, steps, int(steps[0].preview[0][0]), top, low, latest)
    return None


@dataclass(frozen=True)
class Draft:
    """An answer in parts, so that a degradation can change one part and keep the rest word for word."""

    plan: str
    figures: str
    conclusion: str
    ruled_out: str | None
    """A sentence naming another event that does not explain the change (where the conclusion gives a cause)."""
    recommendation: str
    caveat: str

    @property
    def text(self) -> str:
        """The answer as a reader sees it."""
        conclusion = self.conclusion + (f" {self.ruled_out}" if self.ruled_out else "")
        return "\n\n".join(
            (
                f"Plan: {self.plan}",
                f"Figures (from the queries): {self.figures}",
                f"Conclusion: {conclusion}",
                f"Recommendation: {self.recommendation}",
                f"Caveat: {self.caveat}",
            )
        )

    def but(self, **parts: str | None) -> "Draft":
        """The same draft with some parts replaced."""
        return replace(self, **parts)


def figures_text(evidence: Evidence) -> str:
    """The figures read from the results, each with the query it came from."""
    noun = "month" if evidence.dated else f"{evidence.by} value"
    (top, top_rows), (low, low_rows) = evidence.top[0], evidence.low[0]
    share = 100 * top_rows / evidence.total if evidence.total else 0.0
    text = (
        f"{evidence.table} holds {evidence.total:,} rows in all (query 1). The busiest {noun} on record is {top}, "
        f"with {top_rows:,} rows, and the quietest is {low}, with {low_rows:,} rows (queries 2 and 3); that "
        f"{noun} alone holds {share:.1f}% of all rows (queries 1 and 2)."
    )
    if evidence.dated:
        (m1, r1), (m2, r2), (m3, r3) = evidence.latest[:3]
        text += f" The latest three months came to {r1:,} rows in {m1}, {r2:,} in {m2} and {r3:,} in {m3} (query 4)."
    else:
        text += f" The second busiest is {evidence.top[1][0]}, with {evidence.top[1][1]:,} rows (query 2)."
    return text


RECOMMENDATION = (
    "act on {target} in the period named above: the operations lead owns it, the target is to move {table} by ten "
    "percent against the same period last year, and the team reviews the result four weeks after launch."
)
FOLLOW_UP = (
    "track {table} by {by} against this history every week, so that the next change of this size is seen within "
    "days and its cause checked against the records before anyone acts on it."
)
CAVEAT = (
    "the first and last {noun} of the data may be partial, and the counts are of stored rows, so rows removed or "
    "corrected later are not in them; the conclusion rests on the pattern, not on one {by}."
)


def draft_answer(
    question: Question,
    evidence: Evidence,
    *,
    cause: str | None,
    other_cause: str | None,
    target: str | None = None,
) -> Draft:
    """A good answer to `question`: its plan, the figures of `evidence`, the reference's finding as conclusion, a
    recommendation that acts on `target` (what the finding points to) with owner, target and time (a follow-up for
    a question that asks for no recommendation)."""
    claim, _ = reference_parts(question.reference_answer or "")
    noun = "months" if evidence.dated else f"{evidence.by} values"
    plan = (
        f'to answer "{question.text.strip()}", I sized {evidence.table} (query 1), counted its rows by '
        f"{evidence.by} to find the busiest and quietest {noun} (queries 2 and 3)"
        + (" and the latest months (query 4)" if evidence.dated else "")
        + ", and read the finding against that history."
    )
    ruled_out = None
    if cause and other_cause:
        ruled_out = f"Another event on record, {other_cause}, does not line up with the change."
    recommendational = "corgi:type4" in question.labels
    template = RECOMMENDATION if recommendational else FOLLOW_UP
    return Draft(
        plan=plan,
        figures=figures_text(evidence),
        conclusion=claim,
        ruled_out=ruled_out,
        recommendation=template.format(table=evidence.table, by=evidence.by, target=target or "this"),
        caveat=CAVEAT.format(noun=noun, by=evidence.by),
    )
