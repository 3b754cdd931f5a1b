"""`faithfulness`: how many of the claims an answer's prose makes its own query results support, with no model.

Each claim (`biarena.judges.claims`) is checked against the results of the answer's steps, and the gold result
when the question has gold SQL:

- a number is read as rounded to the decimals written (a hedged one, "about 120", within `about` of it), a percent
  also as a share (0.125 for 12.5%) or as the ratio of two figures of the results, a scaled one (3.5万, 1.2 million)
  at its scale;
- it is tied to a result by the labels of the result's rows its clause names (a month, a zone) or, failing that, by
  the queries its sentence cites ("(query 2)"): tied and not matched there, it is contradicted; untied, it is
  supported when any result holds it and not found otherwise;
- a date is supported when a result holds it, not found otherwise;
- a rank claim ("the busiest month is 2024-12") is supported when some result of two rows or more has that label at
  the claimed end, contradicted when the label is in such results but never at that end.

Scores: `faithfulness` the share of claims supported, `faithfulness.contradicted` the share contradicted (0 both
when the prose makes no claim). Every claim and its verdict is in the score's sub-metrics (`show --trace ID`).
"""

import itertools
import math
from dataclasses import dataclass
from typing import Any

from biarena.db import QueryResult
from biarena.judges.base import Judgement, JudgeScorer, ScorerContext
from biarena.judges.claims import Claim, extract_claims
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

SUPPORTED, CONTRADICTED, NOT_FOUND = "supported", "contradicted", "not found"
RATIO_VALUES = 60
"""Most values whose pairwise ratios a percent is compared with (their count grows with the square)."""


class FaithfulnessOptions(Options):
    """How strictly claims are matched."""

    about: float = 0.05
    """Relative slack for a hedged number ("about 120", "约120"): within this share of the result's value."""
    gold: bool = True
    """Also check claims against the gold SQL's result, when the question has gold SQL."""


@dataclass(frozen=True)
class Table:
    """One result the claims are checked against."""

    name: str
    """`query N` or `gold`."""
    number: int | None
    """The query's number (1-based), None for the gold result."""
    rows: list[list[Any]]


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return None
    return None


def _label(value: Any) -> str | None:
    if value is None or _numeric(value) is not None:
        return None
    text = str(value).strip()
    return text if len(text) >= 2 else None


def _totals(table: Table) -> list[float]:
    """Column totals of a result of two rows or more (a share is often of the whole)."""
    if len(table.rows) < 2:
        return []
    width = min(len(row) for row in table.rows)
    totals = []
    for j in range(width):
        numbers = [_numeric(row[j]) for row in table.rows]
        if all(n is not None for n in numbers):
            totals.append(sum(n for n in numbers if n is not None))
    return totals


def _matches(claim: Claim, value: float, slack: float) -> bool:
    target = claim.value or 0.0
    rounded = 0.5 * 10 ** (-claim.decimals) * claim.scale
    if abs(value - target) <= rounded + 1e-9 * max(1.0, abs(target)):
        return True
    return claim.about and abs(value - target) <= slack * abs(value)


def _candidates(claim: Claim, values: list[float]) -> list[float]:
    if claim.kind != "percent":
        return values
    shares = [v * 100 for v in values]
    kept = [v for v in values if v][:RATIO_VALUES]
    ratios = [100 * a / b for a, b in itertools.permutations(kept, 2)]
    return values + shares + ratios


class FaithfulnessJudge(JudgeScorer):
    """The share of an answer's checkable claims that its own query results support (and the share they deny)."""

    name = "faithfulness"
    version = "1"
    infos = (
        ScoreInfo(
            "faithfulness",
            "faithful",
            "share of the prose's claims (numbers, dates, ranks) that the answer's own query results support",
            headline=True,
            average="answered",
            kind="judge",
        ),
        ScoreInfo(
            "faithfulness.contradicted",
            "contradicted",
            "share of the prose's claims that the answer's own query results contradict",
            higher_is_better=False,
            average="answered",
            kind="judge",
        ),
    )
    needs_model = False
    default_rubric = None
    Options = FaithfulnessOptions
    options: FaithfulnessOptions

    def _tables(self, question: Question, answer: Answer, context: ScorerContext) -> list[Table]:
        tables = [Table(f"query {i}", i, [list(r) for r in s.preview]) for i, s in enumerate(answer.steps, 1) if s.ok]
        if self.options.gold and question.gold_sql and context.scoring is not None:
            with context.scoring.lock:
                outcomes = context.scoring.gold(question)
            for _, outcome in outcomes:
                if isinstance(outcome, QueryResult):
                    tables.append(Table("gold", None, [list(r) for r in outcome.rows[:200]]))
        return tables

    def check(self, claim: Claim, tables: list[Table]) -> tuple[str, str]:
        """A claim's verdict against the results, and why."""
        if claim.kind == "date":
            label = claim.label or ""
            where = next((t.name for t in tables for row in t.rows for v in row if str(v).startswith(label)), None)
            return (SUPPORTED, f"{where} holds {claim.label}") if where else (NOT_FOUND, "no result holds this date")
        if claim.kind == "rank":
            return self._rank(claim, tables)
        clause = claim.clause
        labelled = [
            (t, row) for t in tables for row in t.rows if any((lab := _label(v)) and lab in clause for v in row)
        ]
        cited = [t for t in tables if t.number in claim.cited]
        if labelled:
            scope = [(t.name, row) for t, row in labelled]
            tie = "rows named in its clause"
        elif cited:
            scope = [(t.name, row) for t in cited for row in t.rows]
            tie = "the queries it cites"
        else:
            scope = [(t.name, row) for t in tables for row in t.rows]
            tie = None
        values = [(name, n) for name, row in scope for v in row if (n := _numeric(v)) is not None]
        if not labelled:
            values += [(f"the total of {t.name}", total) for t in (cited or tables) for total in _totals(t)]
        candidates = _candidates(claim, [n for _, n in values])
        hit = next((v for v in candidates if _matches(claim, v, self.options.about)), None)
        if hit is not None:
            where = next((name for name, n in values if n == hit), "a ratio of two of its figures")
            return SUPPORTED, f"{claim.text}: {where} gives {hit:g}"
        if tie is not None:
            return CONTRADICTED, f"{claim.text}: not in {tie} ({', '.join(dict.fromkeys(n for n, _ in scope))})"
        return NOT_FOUND, f"{claim.text}: no result holds it"

    def _rank(self, claim: Claim, tables: list[Table]) -> tuple[str, str]:
        label = (claim.label or "").strip()
        seen = []
        for table in tables:
            if len(table.rows) < 2:
                continue
            for row in table.rows:
                if not any((lab := _label(v)) and label.startswith(lab) for v in row):
                    continue
                column = next((j for j, v in enumerate(row) if _numeric(v) is not None), None)
                if column is None:
                    continue
                values = [_numeric(r[column]) for r in table.rows if len(r) > column]
                numbers = [v for v in values if v is not None]
                mine = _numeric(row[column])
                extreme = max(numbers) if claim.top else min(numbers)
                if mine == extreme:
                    return SUPPORTED, f"{table.name}: {label} has the {'highest' if claim.top else 'lowest'} value"
                seen.append(table.name)
        if seen:
            end = "highest" if claim.top else "lowest"
            return CONTRADICTED, f"{label} is not the {end} in {', '.join(dict.fromkeys(seen))}"
        return NOT_FOUND, f"no result ranks {label or 'it'}"

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Extract the prose's claims and check each against the answer's results (and the gold result)."""
        tables = self._tables(question, answer, context)
        claims = extract_claims(answer.text or "")
        verdicts = [(claim, *self.check(claim, tables)) for claim in claims]
        count = {v: sum(1 for _, verdict, _ in verdicts if verdict == v) for v in (SUPPORTED, CONTRADICTED, NOT_FOUND)}
        total = len(verdicts)
        metrics = {
            f"claim {i}": {
                "dimension": "contradicted" if verdict == CONTRADICTED else verdict,
                "score": {SUPPORTED: 1, CONTRADICTED: 0}.get(verdict),
                "reason": f"[{claim.kind}] {reason}",
            }
            for i, (claim, verdict, reason) in enumerate(verdicts, start=1)
        }
        return Judgement(
            scores={
                "faithfulness": count[SUPPORTED] / total if total else 0.0,
                "faithfulness.contradicted": count[CONTRADICTED] / total if total else 0.0,
            },
            sub_scores={"claims": total, **{k.replace(" ", "_"): n for k, n in count.items()}, "sub_metrics": metrics},
            rationale=(
                f"{count[SUPPORTED]} of {total} claims supported by the answer's results, {count[CONTRADICTED]} "
                f"contradicted, {count[NOT_FOUND]} not found"
                if total
                else "the prose makes no claim a result could check"
            ),
        )
