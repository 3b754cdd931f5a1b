"""`insight`: how much of the planted truth an answer states, and what of it the answer contradicts, with no model.

For questions whose evidence records what the simulator planted (the CORGI suite's types 2-4; see
`biarena.judges.insight_truth` for the parts each kind gives), each part of the truth gets one verdict:

- `cause`: stated when a clause names the planted cause by enough of its identifying words (its cause row's values,
  the reference's "because" phrase); contradicted when an asserted "because"/"due to"/"driven by" clause names
  another cause (another planted event or season of the same database, or anything else) and none names the planted
  one, or when a clause denies the planted cause ("does not line up", "ruled out", "rather than ...");
- `slice`, `window`: stated when the answer names the affected value, or a month of the change;
- `direction`, `size`: stated when a clause about the finding says the change went the planted way, and by a factor
  within `size_tolerance` of the planted one ("doubled", "x1.8", "fell by 55%", "+80%"); contradicted when such
  clauses only say the opposite, or only sizes outside the tolerance;
- `figure`: a forecast or growth rate within its tolerance (a hedged figure close by but outside it contradicts);
- `choice`: the month, weekends or weekdays, or segment the truth favours (naming only another one contradicts);
- `action` (type 4): a recommendation clause that names the target and says how much or when (a figure, a month, a
  number of weeks); naming another option instead contradicts.

Scores: `insight`, the share of parts stated (a part both stated and contradicted counts as contradicted);
`insight.contradicted`, the share contradicted. Each part's verdict and the sentence it rests on are in the score's
sub-metrics (`show --trace ID`).

Limits: it reads English prose (a few Chinese cue words), matches words not meaning (a cause described with none of
its identifying words is not found), and judges only what the evidence records; business-rule questions are left
out.
"""

import re
from dataclasses import dataclass

from biarena.judges.base import Judgement, JudgeScorer, ScorerContext
from biarena.judges.insight_text import Clause, changes, clauses, direction_of, months, numbers, terms
from biarena.judges.insight_truth import Cause, Part, applies, known_causes, parts
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

STATED, CONTRADICTED, MISSING = "stated", "contradicted", "missing"
_RECOMMEND = re.compile(
    r"^\s*recommendations?\b|\b(?:recommend\w*|should|suggest\w*|advis\w*|act\s+on|plan\s+for|prioriti[sz]\w*|"
    r"focus\s+on|we\s+need\s+to|consider|schedule|launch|invest|prepare|respond|run\s+(?:a|the)|target)\b|建议|应该|应当",
    re.IGNORECASE,
)
_CONCRETE = re.compile(
    r"\d|%|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|"
    r"hundred|half|a\s+quarter)\s+(?:percent|per\s+cent|weeks?|days?|months?|quarters?)\b|"
    r"\b(?:weekly|daily|monthly|quarterly|every\s+(?:week|day|month|quarter)|next\s+(?:week|month|quarter|year)|"
    r"by\s+the\s+end\s+of|within\s+\w+\s+(?:days|weeks|months))\b",
    re.IGNORECASE,
)
_HEDGED = re.compile(
    r"\b(?:expect\w*|forecast\w*|predict\w*|project\w*|estimat\w*|will|about|around|roughly|plan)\b", re.IGNORECASE
)


class InsightOptions(Options):
    """How close a stated figure must be to the planted one."""

    size_tolerance: float = 0.30
    """How far a stated factor of change ("doubled", "x1.8", "-55%") may be from the planted one (share of it)."""
    cause_share: float = 0.34
    """Share of a cause's identifying words a clause must use to name it (at least half for a cause of up to four
    words)."""


@dataclass(frozen=True)
class Verdict:
    """One part's verdict, and the sentence it rests on."""

    part: str
    truth: str
    verdict: str
    why: str
    sentence: str | None = None


def _share(words: frozenset[str], cause: Cause) -> float:
    return len(words & cause.terms) / len(cause.terms) if cause.terms else 0.0


class InsightJudge(JudgeScorer):
    """How much of the planted truth (cause, slice, direction, size, window, forecast, recommendation) an answer
    states, and how much it contradicts, read from the question's evidence with no model."""

    name = "insight"
    version = "1"
    infos = (
        ScoreInfo(
            "insight",
            "insight",
            "share of the planted truth (cause, slice, direction, size, window, forecast, action) the answer states",
            headline=True,
            average="answered",
            kind="judge",
        ),
        ScoreInfo(
            "insight.contradicted",
            "contradicts truth",
            "share of the planted truth the answer contradicts (another cause, the opposite direction, ...)",
            higher_is_better=False,
            average="answered",
            kind="judge",
        ),
    )
    needs_model = False
    default_rubric = None
    Options = InsightOptions
    options: InsightOptions

    def applies(self, question: Question) -> bool:
        """Questions whose evidence records a planted truth of a kind it reads."""
        return applies(question)

    def _causes(self, question: Question, context: ScorerContext) -> list[Cause]:
        scoring = context.scoring
        questions = scoring.benchmark.questions if scoring is not None else [question]
        cache = self.__dict__.setdefault("_known", {})
        key = (id(questions), question.database)
        if key not in cache:
            cache[key] = known_causes(questions, question.database)
        return cache[key]

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Each part of the truth stated, contradicted or missing, from the answer's prose."""
        truth = parts(question, [])
        found = clauses(answer.text or "", question.text)
        causes = self._causes(question, context)
        anchors = _anchors(truth)
        verdicts = [self._verdict(part, found, causes, anchors) for part in truth]
        stated = sum(v.verdict == STATED for v in verdicts)
        denied = sum(v.verdict == CONTRADICTED for v in verdicts)
        total = len(verdicts) or 1
        summary = f"states {stated} of {len(verdicts)} parts of the planted truth" + (
            f", contradicts {denied}" if denied else ""
        )
        details = "; ".join(
            f"{v.part} {v.verdict}: {v.why}" + (f' ("{v.sentence}")' if v.sentence else "") for v in verdicts
        )
        return Judgement(
            scores={"insight": stated / total, "insight.contradicted": denied / total},
            sub_scores={
                "sub_metrics": {
                    f"{i}:{v.part}": {
                        "dimension": v.verdict,
                        "score": int(v.verdict == STATED),
                        "truth": v.truth,
                        "reason": v.why + (f' ("{v.sentence}")' if v.sentence else ""),
                    }
                    for i, v in enumerate(verdicts, 1)
                },
                "stated": stated,
                "contradicted": denied,
                "parts": len(verdicts),
            },
            rationale=f"{summary}. {details}" if details else summary,
        )

    def _verdict(self, part: Part, found: list[Clause], causes: list[Cause], anchors: "Anchors") -> Verdict:
        if part.name == "cause":
            return self._cause(part, found, causes)
        if part.name in ("slice", "window", "choice"):
            return _named(part, found)
        if part.name == "direction":
            return _direction(part, anchors.clauses(found))
        if part.name == "size":
            return _size(part, found, anchors.clauses(found), self.options.size_tolerance)
        if part.name == "figure":
            return _figure(part, found)
        return _action(part, found)

    def _names(self, words: frozenset[str], cause: Cause) -> bool:
        need = 0.5 if len(cause.terms) <= 4 else self.options.cause_share
        return bool(words & cause.terms) and _share(words, cause) >= need - 1e-9

    def _cause(self, part: Part, found: list[Clause], causes: list[Cause]) -> Verdict:
        true = part.cause
        assert true is not None
        others = [c for c in causes if c.name != true.name]
        stated = denied = wrong = weak = None
        for clause in found:
            if clause.denied and self._names(terms(clause.denied), true):
                denied = denied or clause
            if clause.cause is not None:
                words = terms(clause.cause)
                best = max(others, key=lambda c: _share(words, c), default=None)
                if self._names(words, true) and (best is None or _share(words, true) >= _share(words, best)):
                    stated = stated or clause
                elif words:
                    wrong = wrong or (clause, best if best is not None and self._names(words, best) else None)
            elif self._names(terms(clause.asserted), true):
                weak = weak or clause
        if denied is not None:
            return Verdict("cause", part.description, CONTRADICTED, "denies the planted cause", denied.sentence)
        if stated is not None:
            return Verdict("cause", part.description, STATED, "gives the planted cause", stated.sentence)
        if wrong is not None:
            clause, other = wrong
            why = f"gives another cause ({other.name})" if other else "gives a cause that was not planted"
            return Verdict("cause", part.description, CONTRADICTED, why, clause.sentence)
        if weak is not None:
            return Verdict("cause", part.description, STATED, "names the planted cause", weak.sentence)
        return Verdict("cause", part.description, MISSING, "does not name the planted cause")


@dataclass(frozen=True)
class Anchors:
    """What marks a clause as being about the finding: the slice's words, the window's months, the cause's words."""

    words: frozenset[str]
    months: frozenset[tuple[int, int]]

    def clauses(self, found: list[Clause]) -> list[Clause]:
        """The asserted clauses about the finding (all asserted clauses when none is)."""
        about = [c for c in found if c.asserted and (_has_words(c.asserted, self.words) or _has_month(c, self.months))]
        return about or [c for c in found if c.asserted]


def _anchors(truth: list[Part]) -> Anchors:
    words: set[str] = set()
    spans: set[tuple[int, int]] = set()
    for part in truth:
        if part.name in ("slice", "choice"):
            words |= part.terms
        if part.name == "cause" and part.cause is not None:
            words |= part.cause.terms
        if part.name == "window":
            spans |= part.months
    return Anchors(frozenset(words), frozenset(spans))


def _has_words(text: str, words: frozenset[str]) -> bool:
    return bool(words) and len(terms(text) & words) >= (len(words) + 1) // 2


def _month_in(named: list[tuple[int | None, int]], span: frozenset[tuple[int, int]]) -> bool:
    return any(
        (year, month) in span or (0, month) in span or (year is None and any(m == month for _, m in span))
        for year, month in named
    )


def _has_month(clause: Clause, span: frozenset[tuple[int, int]]) -> bool:
    return bool(span) and _month_in(months(clause.asserted), span)


def _named(part: Part, found: list[Clause]) -> Verdict:
    for clause in found:
        if (part.terms and _has_words(clause.asserted, part.terms)) or _has_month(clause, part.months):
            return Verdict(part.name, part.description, STATED, f"names {part.description}", clause.sentence)
    for clause in found:
        if any(_has_words(clause.asserted, other) for other in part.alternatives) or (
            part.name == "choice" and part.months and months(clause.asserted) and _recommends(clause)
        ):
            return Verdict(part.name, part.description, CONTRADICTED, "names another option", clause.sentence)
    return Verdict(part.name, part.description, MISSING, f"does not name {part.description}")


def _said_direction(clause: Clause) -> int:
    """The direction a clause says, from its words or else from the factor of change it states."""
    said = direction_of(clause.asserted)
    if said:
        return said
    sides = {1 if value > 1 else -1 for value, _ in changes(clause.asserted) if value != 1}
    return sides.pop() if len(sides) == 1 else 0


def _direction(part: Part, about: list[Clause]) -> Verdict:
    said = [(_said_direction(c), c) for c in about]
    right = next((c for d, c in said if d == part.direction), None)
    if right is not None:
        return Verdict("direction", part.description, STATED, "says the change went the planted way", right.sentence)
    wrong = next((c for d, c in said if d == -part.direction), None)
    if wrong is not None:
        return Verdict("direction", part.description, CONTRADICTED, "says the opposite direction", wrong.sentence)
    return Verdict("direction", part.description, MISSING, "says no direction of change")


def _size(part: Part, found: list[Clause], about: list[Clause], tolerance: float) -> Verdict:
    factor = part.factor or 1.0
    off: Clause | None = None
    for clause in found:
        for value, words in changes(clause.asserted):
            if abs(value / factor - 1) <= tolerance:
                why = f"states the change as {words!r} (planted x{factor:.2f})"
                return Verdict("size", part.description, STATED, why, clause.sentence)
            if clause in about and off is None:
                off = clause
    if off is not None:
        why = f"states a change outside {tolerance:.0%} of the planted x{factor:.2f}"
        return Verdict("size", part.description, CONTRADICTED, why, off.sentence)
    return Verdict("size", part.description, MISSING, "states no size of change")


def _close(value: float, truth: float, tolerance: float) -> bool:
    return abs(abs(value) - abs(truth)) <= tolerance * abs(truth) + 1e-9


def _figure(part: Part, found: list[Clause]) -> Verdict:
    truth = part.value or 0.0
    off: Clause | None = None
    for clause in found:
        for value in numbers(clause.asserted):
            if _close(value, truth, part.tolerance):
                return Verdict("figure", part.description, STATED, f"states {value:,.4g}", clause.sentence)
            if off is None and _HEDGED.search(clause.asserted) and truth and 0.5 <= abs(value / truth) <= 2:
                off = clause
    if off is not None:
        why = f"states a figure outside {part.tolerance:.0%} of {part.description.removeprefix('about ')}"
        return Verdict("figure", part.description, CONTRADICTED, why, off.sentence)
    return Verdict("figure", part.description, MISSING, "states no figure within the tolerance")


def _recommends(clause: Clause) -> bool:
    return bool(_RECOMMEND.search(clause.sentence[:16]) or _RECOMMEND.search(clause.asserted))


def _names_target(part: Part, text: str, clause: Clause) -> bool:
    if part.terms and _has_words(text, part.terms):
        return True
    if part.months and _has_month(clause, part.months):
        return True
    return part.value is not None and any(_close(v, part.value, part.tolerance) for v in numbers(text))


def _concrete(part: Part, text: str) -> bool:
    """Says how much or when beyond naming the target itself."""
    rest = text
    if part.value is not None:
        rest = re.sub(
            r"[+\-−]?\d[\d,]*(?:\.\d+)?\s*%?", lambda m: "" if _figure_of(m.group(0), part) else m.group(0), rest
        )
    if part.months:
        rest = re.sub(
            r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b", "", rest
        )
    return bool(_CONCRETE.search(rest))


def _figure_of(text: str, part: Part) -> bool:
    value = numbers(text)
    return bool(value) and part.value is not None and _close(value[0], part.value, part.tolerance)


def _action(part: Part, found: list[Clause]) -> Verdict:
    labelled = [c for c in found if c.asserted and c.advice]
    advice = labelled or [c for c in found if c.asserted and _recommends(c)]
    vague: Clause | None = None
    for clause in advice:
        if _names_target(part, clause.asserted, clause):
            if _concrete(part, clause.asserted):
                why = f"recommends acting on {part.description.removeprefix('act on ')} with a figure or a time"
                return Verdict("action", part.description, STATED, why, clause.sentence)
            vague = vague or clause
    if vague is not None:
        why = "names the target but says neither how much nor when"
        return Verdict("action", part.description, MISSING, why, vague.sentence)
    if not advice:
        return Verdict("action", part.description, MISSING, "makes no recommendation")
    return Verdict("action", part.description, MISSING, "recommends nothing about the planted target")
