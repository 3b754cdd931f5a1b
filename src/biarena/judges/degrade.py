"""Degraded copies of an analyst's answer whose inferiority needs no model, and which length and wording do not give
away: each copy reuses the good answer's text, stays within 10% of its length, and changes one thing.

- `cause_swapped`: the cause ("because ...") and the event ruled out trade places;
- `numbers_changed`: the figures read from the queries moved up or down by 30-50% (same format; dates, day ranges,
  times, years, query numbers and ids kept);
- `vague_recommendation`: the recommendation's action, owner, target and time replaced by vague words (type 4);
- `contradicted`: the busiest and the quietest trade places, against the query results;
- `padded`: the figures replaced by sentences of the same length that say nothing;
- `results_swapped`: the same prose and SQL, over results that contradict it (every figure off by 30-50%);
- `wrong_sql`: plausible SQL that reads only the latest year as if it were all the data, with the figures it gives.

A degradation that does not apply to an answer (no cause to swap, no figure to change) returns None.
"""

import random
import re
from collections.abc import Callable

from biarena.judges.analyst import Draft, Evidence, figures_text
from biarena.records import Step

DEGRADATIONS = (
    "cause_swapped",
    "numbers_changed",
    "vague_recommendation",
    "contradicted",
    "padded",
    "results_swapped",
    "wrong_sql",
)
"""Degradation names, in report order."""

LENGTH_SLACK = 0.10
"""How far a degraded copy's length may be from the good answer's (a share of it)."""

_CAUSE = re.compile(r"(?<!not )\bbecause (?:of )?(?P<cause>(?:[^.;():]|\.(?=\d))+)")
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DAYS = r"\d{1,2}(?:st|nd|rd|th)?"
_PROTECTED = re.compile(
    r"\d{4}-\d{2}(?:-\d{2})?(?:[ T]\d{2}:\d{2}(?::\d{2})?)?"  # dates, months and times
    rf"|\b(?:{_MONTHS})\.? {_DAYS}(?:(?:\s*[-–]\s*|\s+(?:to|and|through|until)\s+)(?:(?:{_MONTHS})\.? )?{_DAYS})?\b"
    rf"|\b{_DAYS} (?:of )?(?:{_MONTHS})\b"  # "24 November", "the 3rd of May"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?"  # times
    r"|\b(?:19|20)\d{2}\b"  # years
    r"|\b(?:quer(?:y|ies)|steps?|ids?|IDs?|no\.|number|#)\s*\d+(?:(?:\s*,\s*|\s+and\s+|\s*-\s*)\d+)*",  # references
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.,])(?P<sign>[+\-−]?)(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d,]\d)")
VAGUE = (
    "act on {target} when the time seems right: the relevant teams own it, the aim is to improve {table} wherever "
    "the potential looks greatest, and everyone keeps an eye on the results as things develop{more}."
)
VAGUE_MORE = " over the coming period and beyond"
LONGER = (
    ("may be partial", "may well be only partial"),
    ("are not in them", "are not counted in them at all"),
    ("rests on the pattern", "rests on the whole pattern over time"),
)
SHORTER = (
    ("rests on the pattern, not on one", "rests on the pattern, not one"),
    ("so rows removed or corrected later are not in them", "so later corrections are not in them"),
    ("and the counts are of stored rows, so later corrections are not in them", "and the counts are of stored rows"),
)
"""Rewrites of the caveat that keep its sense and change its length, so that length says nothing of which copy is
degraded."""
FILLER = (
    "It is worth keeping the broader business context in mind when reading these figures.",
    "Data-driven decisions call for careful interpretation of how the numbers evolve over time.",
    "Every business is different, and local circumstances can always play a role.",
    "Stakeholders across the organization may find this analysis useful for their planning.",
    "As with any analysis, the conclusions depend on the quality of the underlying data.",
    "Regular reviews of these indicators help the team stay informed about the business.",
    "Clear communication of the findings supports alignment between teams.",
    "Further analysis could add more detail to this picture in the future.",
    "The picture may look different from other angles, and that is worth remembering.",
    "Patterns like these are common in businesses of this kind.",
)


def cause_of(text: str) -> str | None:
    """The cause an answer gives ("because ..."), or None."""
    found = _CAUSE.search(text)
    return found["cause"].strip() if found else None


def other_cause(text: str, causes: list[str], rng: random.Random) -> str | None:
    """Another event's cause from `causes` (one that is not this answer's own), or None."""
    own = (cause_of(text) or "").lower()
    if not own:
        return None
    others = sorted({c for c in causes if c.strip().lower() != own and own not in c.lower() and c.lower() not in own})
    return rng.choice(others) if others else None


def _changed(match: re.Match[str], rng: random.Random) -> str:
    digits = match["digits"]
    value = float(digits.replace(",", ""))
    if value == 0:
        return match.group(0)
    factor = 1 + rng.choice((-1, 1)) * rng.uniform(0.3, 0.5)
    new = value * factor
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    if decimals == 0 and round(new) == value:
        new = value + (1 if factor > 1 else -1)
    text = f"{new:,.{decimals}f}" if "," in digits else f"{new:.{decimals}f}"
    return match["sign"] + text


def numbers_changed(text: str, rng: random.Random) -> str | None:
    """The text with every figure moved by 30-50% up or down in the same format; dates, day ranges ("November 24
    to 28"), times, years, query numbers and ids kept. None when it has no figure."""
    protected = [m.span() for m in _PROTECTED.finditer(text)]
    changed = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal changed
        if any(a <= match.start() < b for a, b in protected):
            return match.group(0)
        new = _changed(match, rng)
        changed += new != match.group(0)
        return new

    out = _NUMBER.sub(swap, text)
    return out if changed else None


def cause_swapped(draft: Draft) -> Draft | None:
    """The cause and the event ruled out trade places (the same words, the wrong cause)."""
    if draft.ruled_out is None:
        return None
    own = cause_of(draft.conclusion)
    found = _CAUSE.search(draft.conclusion)
    other = draft.ruled_out.removeprefix("Another event on record, ").split(", does not line up")[0]
    if found is None or not own or not other:
        return None
    start, end = found.span("cause")
    conclusion = draft.conclusion[:start] + other + draft.conclusion[end:]
    return draft.but(conclusion=conclusion, ruled_out=draft.ruled_out.replace(other, own, 1))


def contradicted(draft: Draft) -> Draft | None:
    """The busiest and the quietest trade places in the figures (the same words, a claim the results deny)."""
    swapped = re.sub(r"\b(busiest|quietest)\b", lambda m: {"busiest": "quietest"}.get(m[1], "busiest"), draft.figures)
    return draft.but(figures=swapped) if swapped != draft.figures else None


def padded(draft: Draft, rng: random.Random) -> Draft:
    """The figures replaced by filler sentences of about the same length (the figures are the padding's victim: the
    answer keeps its size and loses what it rests on)."""
    filler = list(FILLER)
    rng.shuffle(filler)
    out: list[str] = []
    for sentence in filler * 4:
        if len(" ".join(out)) >= len(draft.figures):
            break
        out.append(sentence)
    if len(out) > 1 and len(draft.figures) - len(" ".join(out[:-1])) < len(" ".join(out)) - len(draft.figures):
        out.pop()  # the closer of the two lengths around the figures'; `balanced` then picks the side at random
    return draft.but(figures=" ".join(out))


def vague_recommendation(
    draft: Draft, evidence: Evidence, recommendational: bool, rng: random.Random, target: str | None = None
) -> Draft | None:
    """For a question that asks for a recommendation: its owner, size and time made vague (what it acts on, `target`,
    is kept, so the copy uses the same words of the finding)."""
    if not recommendational:
        return None
    more = VAGUE_MORE if rng.random() < 0.5 else ""
    return draft.but(recommendation=VAGUE.format(target=target or "this", table=evidence.table, more=more))


def balanced(good: Draft, worse: Draft, rng: random.Random) -> Draft:
    """`worse` with its caveat reworded (same sense) so that it is longer or shorter than `good` at random; copies
    of the same length stay as they are."""
    if len(worse.text) == len(good.text):
        return worse
    want_longer = rng.random() < 0.5
    for old, new in LONGER if want_longer else SHORTER:
        if (len(worse.text) > len(good.text)) == want_longer:
            break
        worse = worse.but(caveat=worse.caveat.replace(old, new))
    return worse


def _scaled(step: Step, factor: float) -> Step:
    def cell(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value
        return round(value * factor) if isinstance(value, int) else round(value * factor, 4)

    return step.model_copy(update={"preview": [[cell(v) for v in row] for row in step.preview]})


def results_swapped(steps: list[Step], rng: random.Random) -> list[Step]:
    """The same SQL over results whose every figure is 30-50% off (one factor a query, so the order holds)."""
    return [_scaled(step, 1 + rng.choice((-1, 1)) * rng.uniform(0.3, 0.5)) for step in steps]


def _within(good: str, worse: str) -> bool:
    return abs(len(worse) - len(good)) <= LENGTH_SLACK * len(good)


def degrade(
    name: str,
    draft: Draft,
    evidence: Evidence,
    rng: random.Random,
    *,
    recommendational: bool,
    wrong: Callable[[], Evidence | None] | None = None,
    target: str | None = None,
) -> tuple[str, list[Step]] | None:
    """One degradation by name: the degraded text and the steps under it; None when it does not apply (or would
    move the length by more than `LENGTH_SLACK`)."""
    steps = evidence.steps
    worse: Draft | None
    if name == "cause_swapped":
        worse = cause_swapped(draft)
    elif name == "numbers_changed":
        figures = numbers_changed(draft.figures, rng)
        worse = draft.but(figures=figures) if figures else None
    elif name == "vague_recommendation":
        worse = vague_recommendation(draft, evidence, recommendational, rng, target)
    elif name == "contradicted":
        worse = contradicted(draft)
    elif name == "padded":
        worse = padded(draft, rng)
    elif name == "results_swapped":
        worse, steps = draft, results_swapped(evidence.steps, rng)
    elif name == "wrong_sql":
        other = wrong() if wrong is not None else None
        if other is None or other.total == evidence.total:
            return None
        worse, steps = draft.but(figures=figures_text(other)), other.steps
    else:
        raise ValueError(f"unknown degradation '{name}'")
    if worse is not None:
        worse = balanced(draft, worse, rng)
    if worse is None or (worse.text == draft.text and steps is evidence.steps) or not _within(draft.text, worse.text):
        return None
    return worse.text, steps
