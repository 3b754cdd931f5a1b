"""The planted truth a question carries, as the parts an answer can state or contradict (for the `insight` scorer).

A CORGI suite question of types 2-4 carries its `evidence`: what the simulator planted (a planted event with its
cause row, affected slice, factor and window; a seasonal month, recurring event or weekend effect with its reason;
a growth trend; segment weights; a forecast's expected value). Each becomes parts:

- `cause`: the cause, by the words of its identifying values (the cause row's values and the reference's "because"
  phrase, less the question's own words);
- `slice`: the affected slice's value; `direction`: up or down; `size`: the factor of change; `window`: the months
  of the change;
- `figure`: a forecast's or growth rate's expected value with its tolerance;
- `choice`: what a recommendation or a "which one" answer must name (a month, weekends or weekdays, a segment);
- `action` (type 4): a recommendation that names the target and says how much or when.
"""

import calendar
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from biarena.judges.analyst import reference_parts
from biarena.judges.insight_text import months, terms
from biarena.records import Question

KINDS = ("planted", "seasonal", "trend", "forecast", "segment")
"""Evidence kinds the scorer reads (business rules, `rule`, are not judged: their truth is a policy, not a finding)."""
SIZE_TOLERANCE = 0.30
"""How far a stated factor of change may be from the planted one, as a share of it."""
FIGURE_TOLERANCE = 0.10
"""A forecast's tolerance when its evidence states none (a share of the expected value)."""
_CAUSE = re.compile(r"(?<!not )\bbecause (?:of )?(?P<cause>(?:[^.;():]|\.(?=\d))+)")
_LEAD = re.compile(r"^\s*(?:On\s+)?(?P<value>[\w][\w \-]*?)\s*[:,]")


@dataclass(frozen=True)
class Cause:
    """A cause the simulator planted in one database."""

    name: str
    """How the rationale names it (the event, or the season's reason)."""
    terms: frozenset[str]


@dataclass(frozen=True)
class Part:
    """One part of the truth an answer may state."""

    name: str
    """`cause`, `slice`, `direction`, `size`, `window`, `figure`, `choice` or `action`."""
    description: str
    """The truth in words, for the rationale."""
    cause: Cause | None = None
    terms: frozenset[str] = frozenset()
    """`slice`, `choice` and `action`: the words that name it."""
    months: frozenset[tuple[int, int]] = frozenset()
    """`window`, `choice`: the (year, month) pairs; year 0 for a month of every year."""
    direction: int = 0
    factor: float | None = None
    value: float | None = None
    tolerance: float = 0.0
    """`figure`: the allowed relative error."""
    alternatives: tuple[frozenset[str], ...] = field(default_factory=tuple)
    """`choice`: the words of the other options (naming one instead is a contradiction)."""


def _kind(question: Question) -> str | None:
    kind = (question.evidence or {}).get("kind")
    return kind if kind in KINDS else None


def applies(question: Question) -> bool:
    """True when the question carries evidence of a kind the scorer reads."""
    return _kind(question) is not None and bool(parts(question, []))


def reference_cause(question: Question) -> str | None:
    """The cause the reference gives ("because ..."), or None."""
    claim, _ = reference_parts(question.reference_answer or "")
    found = _CAUSE.search(claim)
    return found["cause"].strip() if found else None


def _cause_terms(words: str, question: Question) -> frozenset[str]:
    mine = terms(words)
    kept = mine - terms(question.text)
    return kept or mine


def cause_of(question: Question) -> Cause | None:
    """The planted cause of a question (a planted event's cause row, a season's or recurring event's reason)."""
    evidence = question.evidence or {}
    parameters = evidence.get("parameters") or {}
    said = reference_cause(question) or ""
    if evidence.get("kind") == "planted":
        row = (evidence.get("cause") or {}).get("row") or {}
        values = " ".join(str(v) for v in row.values() if isinstance(v, str))
        return Cause(str(evidence.get("event")), _cause_terms(f"{values} {said}", question))
    if evidence.get("kind") == "seasonal":
        reason = parameters.get("reason") or (parameters.get("event") or {}).get("reason")
        if reason or said:
            return Cause(str(reason or said), _cause_terms(f"{reason or ''} {said}", question))
    if evidence.get("kind") == "trend":
        phases = parameters.get("trend") or []
        reason = phases[-1].get("reason") if phases else None
        if reason:
            return Cause(str(reason), _cause_terms(str(reason), question))
    return None


def known_causes(questions: list[Question], database: str) -> list[Cause]:
    """Every cause planted in one database, as the questions' evidence gives them (seasonal reasons included)."""
    out: dict[str, Cause] = {}
    for question in questions:
        if question.database != database or not question.evidence:
            continue
        cause = cause_of(question)
        if cause is not None and cause.terms:
            out.setdefault(cause.name, cause)
        season = (question.evidence.get("parameters") or {}).get("seasonality") or {}
        for reason in (season.get("reasons") or {}).values():
            if reason and reason not in out:
                out[reason] = Cause(reason, terms(reason))
    return list(out.values())


def _month_span(first: str, last: str) -> frozenset[tuple[int, int]]:
    start, end = date.fromisoformat(first[:10]), date.fromisoformat(last[:10])
    out, year, month = set(), start.year, start.month
    while (year, month) <= (end.year, end.month):
        out.add((year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return frozenset(out)


def _direction(factor: float) -> int:
    return 0 if factor == 1 else (1 if factor > 1 else -1)


def _size_parts(factor: float, what: str) -> list[Part]:
    parts = []
    if _direction(factor):
        parts.append(Part("direction", f"{what} went {'up' if factor > 1 else 'down'}", direction=_direction(factor)))
    parts.append(Part("size", f"{what} changed x{factor:.2f}", factor=factor, tolerance=SIZE_TOLERANCE))
    return parts


def _claim(question: Question) -> str:
    return reference_parts(question.reference_answer or "")[0]


def _choice(question: Question) -> Part | None:
    """What a type-4 answer must name: the month(s), weekends or weekdays, or the value the reference leads with."""
    evidence, claim = question.evidence or {}, _claim(question)
    parameters = evidence.get("parameters") or {}
    if "weekend" in parameters and set(parameters) == {"weekend"}:
        said = re.match(r"\s*On\s+(weekends|weekdays)", claim)
        if said:
            other = "weekdays" if said[1] == "weekends" else "weekends"
            return Part("choice", said[1], terms=terms(said[1]), alternatives=(terms(other),))
        return None
    if evidence.get("kind") == "seasonal":
        named = months(claim)
        if named:
            year, month = named[0]
            name = calendar.month_name[month]
            return Part("choice", name, months=frozenset({(year or 0, month)}))
    if evidence.get("kind") == "segment":
        lead = _LEAD.match(claim)
        if lead and not re.match(r"(?i)behaviou?r|they\b", lead["value"]):
            return Part("choice", lead["value"], terms=terms(lead["value"]))
    return None


def _figure(question: Question) -> Part | None:
    evidence = question.evidence or {}
    expected = evidence.get("expected")
    if not isinstance(expected, int | float):
        return None
    tolerance = evidence.get("tolerance")
    if evidence.get("tolerance_unit") or not isinstance(tolerance, int | float):
        tolerance = FIGURE_TOLERANCE
    value = float(expected)
    if evidence.get("kind") == "trend" and abs(value) < 5:
        value *= 100  # a growth rate: stated in percent
        return Part("figure", f"growth of about {value:+.0f}%", value=value, tolerance=max(tolerance, 0.25))
    return Part("figure", f"about {value:,.4g}", value=value, tolerance=float(tolerance))


def parts(question: Question, questions: list[Question]) -> list[Part]:
    """The parts of the planted truth one question carries (none for a kind the scorer does not read)."""
    kind = _kind(question)
    evidence = question.evidence or {}
    parameters = evidence.get("parameters") or {}
    out: list[Part] = []
    cause = cause_of(question)
    if kind == "planted":
        effect = evidence.get("effect") or {}
        if cause is not None and cause.terms:
            out.append(Part("cause", f"the cause is {cause.name}", cause=cause))
        for column, value in (effect.get("slice") or {}).items():
            noun = (parameters.get("planted") or {}).get("noun")
            words = terms(str(noun)) if noun else terms(str(value))
            if words:
                out.append(Part("slice", f"the slice {column} = {value}", terms=words))
        out += _size_parts(float(effect.get("factor") or 1), "the slice")
        if evidence.get("window"):
            window = evidence["window"]
            out.append(Part("window", f"from {window[0]} to {window[1]}", months=_month_span(*window)))
    elif kind == "seasonal":
        if cause is not None and cause.terms:
            out.append(Part("cause", f"the reason is {cause.name}", cause=cause))
        event = parameters.get("event") or {}
        factor = parameters.get("factor") or event.get("factor") or parameters.get("weekend")
        if isinstance(factor, int | float) and "corgi:type4" not in question.labels:
            out += _size_parts(float(factor), "activity")
        month = parameters.get("month") or event.get("month")
        if month and "corgi:type4" not in question.labels:
            out.append(Part("window", f"month {month}", months=frozenset({(0, int(month))})))
    elif kind == "trend" and cause is not None and cause.terms:
        out.append(Part("cause", f"the change of trend: {cause.name}", cause=cause))
    if kind in ("trend", "forecast") and (figure := _figure(question)) is not None:
        out.append(figure)
    if kind == "segment" and "corgi:type2" in question.labels:
        weights = parameters.get("weights") or {}
        if weights:
            top = max(weights, key=weights.get)
            low = min(weights, key=weights.get)
            out.append(Part("choice", f"{top} generate the most", terms=terms(top.replace("_", " "))))
            if weights[low]:
                out.append(
                    Part(
                        "size",
                        f"{top} vs {low} x{weights[top] / weights[low]:.1f}",
                        factor=weights[top] / weights[low],
                        tolerance=SIZE_TOLERANCE,
                    )
                )
    if "corgi:type4" in question.labels:
        choice = _choice(question)
        if choice is not None:
            out.append(choice)
        target = action_target(question, out)
        if target is not None:
            out.append(target)
    return out


def action_target(question: Question, known: list[Part] | None = None) -> Part | None:
    """The `action` part of a type-4 question: what its recommendation must act on."""
    known = parts(question, []) if known is None else known
    by_name = {p.name: p for p in known}
    if "choice" in by_name:
        choice = by_name["choice"]
        return Part("action", f"act on {choice.description}", terms=choice.terms, months=choice.months)
    if "slice" in by_name or "cause" in by_name:
        named = by_name.get("slice") or by_name["cause"]
        words = named.terms or (named.cause.terms if named.cause else frozenset())
        return Part("action", f"act on {named.description.removeprefix('the ')}", terms=words)
    if "figure" in by_name:
        figure = by_name["figure"]
        return Part("action", f"plan for {figure.description}", value=figure.value, tolerance=figure.tolerance)
    return None


def target_words(question: Question) -> str | None:
    """The target of a type-4 question in words an answer can use (a month, a segment, a slice, a cause, a figure)."""
    target = action_target(question)
    if target is None:
        return None
    claim = _claim(question)
    if target.months:
        (_, month), *_ = sorted(target.months)
        return f"the month of {calendar.month_name[month]}"
    if target.value is not None:
        return f"{target.value:+.0f}%" if "growth" in target.description else f"about {target.value:,.0f}"
    evidence: dict[str, Any] = question.evidence or {}
    slice_ = (evidence.get("effect") or {}).get("slice") or {}
    noun = ((evidence.get("parameters") or {}).get("planted") or {}).get("noun")
    if noun:
        return str(noun)
    if slice_:
        return " ".join(str(v).replace("_", " ") for v in slice_.values())
    lead = _LEAD.match(claim)
    if lead:
        return lead["value"]
    return reference_cause(question)
