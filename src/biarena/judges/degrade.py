"""Good answers from a simulator-known truth, and degraded copies of them whose inferiority needs no model.

A good answer states the reference's finding (the planted cause, the expected figure, the recommendation the data
favours) and, for a planted event, what the data shows. Each degradation changes one thing:

- `cause_swapped`: the cause ("because ...") replaced by the cause of another event in the same database;
- `numbers_changed`: every figure (not dates or years) moved up or down by 30-50%;
- `vague_recommendation`: the recommendation replaced by one that names no action, time or target (type 4);
- `contradicted`: one claim turned into its opposite (a rise into a fall, weekends into weekdays, ...);
- `padded`: the answer padded to twice its length with sentences that say nothing.

A degradation that does not apply to an answer (no cause to swap, no number to change) returns None.
"""

import random
import re
from collections.abc import Callable

DEGRADATIONS = ("cause_swapped", "numbers_changed", "vague_recommendation", "contradicted", "padded")
"""Degradation names, in report order."""

HIDDEN = "Evidence (hidden parameters):"
_TOLERANCE = re.compile(r"\s*\(tolerance [^)]*\)")
_PLANTED = re.compile(
    r"planted event '[^']+', (?P<what>.+?) x(?P<factor>\d+(?:\.\d+)?) from (?P<start>\d{4}-\d{2}-\d{2}) to "
    r"(?P<end>\d{4}-\d{2}-\d{2}) against the weeks before"
)
_CAUSE = re.compile(r"\bbecause (?:of )?(?P<cause>[^.;()]+)")
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_PROTECTED = re.compile(
    rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[ T]\d{{2}}:\d{{2}}(?::\d{{2}})?)?"  # dates and times
    rf"|\b(?:{_MONTHS})\.? \d{{1,2}}(?:\s*[-–]\s*\d{{1,2}})?\b"  # "February 11-12", "Sept. 2"
    r"|\b(?:19|20)\d{2}\b"  # years
)
_NUMBER = re.compile(r"(?<![\w.,])(?P<sign>[+\-−]?)(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d,]\d)")
_OPPOSITES = [
    ("rose", "fell"),
    ("rise", "fall"),
    ("rises", "falls"),
    ("risen", "fallen"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("more", "fewer"),
    ("most", "least"),
    ("weekends", "weekdays"),
    ("peak", "weakest"),
    ("doubled", "halved"),
    ("grows", "shrinks"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("busier", "quieter"),
    ("jump", "drop"),
    ("before", "after"),
]
_FLIP = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
_FLIP_WORD = re.compile(r"\b(" + "|".join(sorted(_FLIP, key=len, reverse=True)) + r")\b", re.IGNORECASE)
VAGUE = (
    "We recommend taking appropriate action at the right time, focusing on the areas with the most potential and "
    "monitoring the results closely."
)
FILLER = (
    "It is worth keeping the broader business context in mind when reading these figures.",
    "Data-driven decisions call for careful interpretation of how the numbers evolve over time.",
    "Every business is different, and local circumstances can always play a role.",
    "Stakeholders across the organization may find this analysis useful for their planning.",
    "As with any analysis, the conclusions depend on the quality of the underlying data.",
    "Regular reviews of these indicators help the team stay informed about the business.",
    "Clear communication of the findings supports alignment between teams.",
    "Further analysis could add more detail to this picture in the future.",
)


def reference_parts(reference: str) -> tuple[str, str | None]:
    """The reference's finding (what an answer states) and its hidden evidence (None when it has none)."""
    claim, _, hidden = reference.partition(HIDDEN)
    return _TOLERANCE.sub("", claim).strip(), (hidden.strip() or None)


def good_answer(reference: str) -> str:
    """A good answer from a simulator reference: its finding, plus what the data shows for a planted event."""
    claim, hidden = reference_parts(reference)
    found = _PLANTED.search(hidden or "")
    if found is None:
        return claim
    what = found["what"].replace("share of rows of", "the share of").replace("rows of", "").strip()
    return (
        f"{claim} In the data, {what} ran at {float(found['factor']):.2f} times the level of the weeks before, "
        f"from {found['start']} to {found['end']}."
    )


def cause_of(text: str) -> str | None:
    """The cause an answer gives ("because ..."), or None."""
    found = _CAUSE.search(text)
    return found["cause"].strip() if found else None


def cause_swapped(text: str, rng: random.Random, causes: list[str]) -> str | None:
    """The answer with its cause replaced by another one from `causes` (another event's)."""
    found = _CAUSE.search(text)
    if found is None:
        return None
    own = found["cause"].strip().lower()
    others = sorted({c for c in causes if c.strip().lower() != own and own not in c.lower() and c.lower() not in own})
    if not others:
        return None
    start, end = found.span("cause")
    return text[:start] + rng.choice(others) + text[end:]


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
    """The answer with every figure (dates, days of a month and years kept) moved by 30-50% up or down."""
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


def vague_recommendation(text: str, rng: random.Random, recommendational: bool) -> str | None:
    """For a recommendational answer: its recommendation (the reference's finding) replaced by a vague one, the
    data it rests on kept."""
    if not recommendational:
        return None
    _, sep, data = text.partition(" In the data, ")
    return VAGUE + (f" In the data, {data}" if sep else "")


def contradicted(text: str, rng: random.Random) -> str | None:
    """The answer with its first directional claim reversed (a rise becomes a fall, weekends weekdays, ...)."""
    found = _FLIP_WORD.search(text)
    if found is None:
        return None
    word = found.group(0)
    opposite = _FLIP[word.lower()]
    if word[0].isupper():
        opposite = opposite[0].upper() + opposite[1:]
    return text[: found.start()] + opposite + text[found.end() :]


def padded(text: str, rng: random.Random) -> str:
    """The answer padded to twice its length with sentences that add nothing."""
    filler = list(FILLER)
    rng.shuffle(filler)
    out, i = text, 0
    while len(out) < 2 * len(text):
        out += " " + filler[i % len(filler)]
        i += 1
    return out


def degrade(name: str, text: str, rng: random.Random, *, causes: list[str], recommendational: bool) -> str | None:
    """Apply one degradation by name; None when it does not apply to this answer."""
    makers: dict[str, Callable[[], str | None]] = {
        "cause_swapped": lambda: cause_swapped(text, rng, causes),
        "numbers_changed": lambda: numbers_changed(text, rng),
        "vague_recommendation": lambda: vague_recommendation(text, rng, recommendational),
        "contradicted": lambda: contradicted(text, rng),
        "padded": lambda: padded(text, rng),
    }
    out = makers[name]()
    return None if out is None or out.strip() == text.strip() else out
