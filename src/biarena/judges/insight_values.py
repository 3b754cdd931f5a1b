"""`insight_values`: the figures of an InsightBench ground truth (`insight_value`) checked against the answer's
prose, with no model.

The reference's values become facts: each figure with the names it is about and whether it is a percent. A figure
beside a name is that name's (`{"x_val": "Hardware", "y_val": 335}`: 335 is Hardware's, `y_val` the measure); a
figure under a key with no name beside it is the key's (`{"IT": "49%"}`); parallel lists are read as rows; nested
objects add their keys (`{"IT": {"Critical": 54}}`: 54 is IT's and Critical's). Figures written in text are read
("49%", "60000$", "Average 58.3%").

The answer's claims are extracted as `faithfulness` extracts them (`biarena.judges.claims`) and each number is read
as `faithfulness` reads it (rounded to the decimals written, hedges, percents as shares or ratios). A claim is
stated when it gives a reference figure. It is contradicted only when it is about a reference figure and gives
none: its clause names one of the figure's names or its measure's key (whole words, case aside), it is of the same
measure (a percent against a percent, a count or an amount against a count or an amount), the word that follows it,
when one does, belongs to the ground truth's vocabulary (its insight, question and values), so "deploy 2 teams to
Australia" is not read as a count of Australia's incidents, and it is not a difference or a multiple ("20% higher",
"3 times"). A figure that is only part of a date ("01-06-2023") or a question's number ("Question 4") is no claim.
So the reference answer itself, action prose included, contradicts none of its values.

Scores: `insight_values` the share of the reference's numbers the answer states; `insight_values.contradicted` the
share of the answer's numeric claims that contradict a reference figure. Only questions whose reference holds a
number are scored (InsightBench: a minority; `biarena describe scorer insight_values`).
"""

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from biarena.judges.base import Judgement, JudgeScorer, ScorerContext
from biarena.judges.claims import Claim, extract_claims
from biarena.judges.faithfulness import SUPPORTED, FaithfulnessJudge, Table
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring.score_info import ScoreInfo

_NUMERIC = ("number", "percent", "money")
_FIGURE = re.compile(r"[+\-]?\d[\d,]*(?:\.\d+)?")
_PERCENT_WORDS = re.compile(r"percent|rate\b|share|proportion|ratio|%", re.IGNORECASE)
_DATE_LIKE = re.compile(r"\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b")
_WORD = re.compile(r"[a-z]+")
_NAME_WORDS = 6
"""Longest text (in words) read as a name a figure is about; longer ones are descriptions."""
# Words that may follow a figure without naming what it counts ("335 in Australia", "49% of all goals").
_FUNCTION_WORD = re.compile(
    r"a|an|the|and|or|of|in|on|at|to|for|by|from|with|than|vs|versus|per|each|over|under|above|below|out|is|are|was|"
    r"were|be|which|that|this|these|those|as|while|when|compared|respectively|percentage|percent|total|overall|"
    r"average|mean|median"
)
# Words after a figure that make it a difference or a multiple of the value rather than the value itself.
_RELATIVE = re.compile(
    r"differences?|gaps?|more|less|fewer|higher|lower|greater|smaller|increases?|decreases?|rise|drop|changes?|"
    r"times|fold|points?"
)
_REFERENCE = re.compile(
    r"\b(?:questions?|insights?|figures?|fig\.?|tables?|charts?|sections?|items?|steps?|flags?|q)\s*#?\s*$",
    re.IGNORECASE,
)


def _number(value: Any) -> float | None:
    """A figure of the values: a number, or the one number a short text gives ("49%", "60000$", "Average 58.3%")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if not isinstance(value, str) or len(value.split()) > 3:
        return None
    found = _FIGURE.findall(value)
    if len(found) != 1 or _DATE_LIKE.search(value):
        return None
    try:
        number = float(found[0].replace(",", ""))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _name(value: Any) -> str | None:
    """A text that names what a figure is about (a category, an agent, a priority), None for a figure or prose."""
    if not isinstance(value, str) or _number(value) is not None:
        return None
    text = value.strip()
    return text if len(text) >= 2 and len(text.split()) <= _NAME_WORDS else None


class InsightValuesOptions(Options):
    """How strictly figures are matched."""

    about: float = 0.05
    """Relative slack for a hedged figure ("about 120", "approximately 1200 days"): within this share of the value."""


@dataclass(frozen=True)
class Fact:
    """One figure of a ground truth's values."""

    value: float
    names: tuple[str, ...]
    """What the figure is about: the names beside it and the keys above it."""
    percent: bool
    """Written as a percent, or its key names a rate or share."""
    measure: str = ""
    """The key it is under (`y_val`, `incidents_assigned`), when that key is not one of its names."""


def value_facts(value: Any, names: tuple[str, ...] = (), measure: str = "") -> list[Fact]:
    """The figures of a reference's values, each with the names it is about."""
    if _scalar(value):
        number = _number(value)
        if number is None:
            return []
        percent = bool(_PERCENT_WORDS.search(f"{value if isinstance(value, str) else ''} {measure}"))
        return [Fact(number, names, percent, measure)]
    if isinstance(value, list):
        return [fact for item in value for fact in value_facts(item, names, measure)]
    if not isinstance(value, dict):
        return []
    items = {str(key): inner for key, inner in value.items()}
    beside = tuple(name for inner in items.values() if (name := _name(inner)))
    lists = {k: v for k, v in items.items() if isinstance(v, list) and v and all(_scalar(x) for x in v)}
    zipped = len(lists) > 1 and len({len(v) for v in lists.values()}) == 1
    facts: list[Fact] = []
    if zipped:  # parallel lists are the columns of a table: a row's names are its figures'
        for parts in zip(*lists.values(), strict=True):
            row = tuple(name for part in parts if (name := _name(part)))
            for key, part in zip(lists, parts, strict=True):
                facts += value_facts(part, names + beside + row, key)
    for key, inner in items.items():
        if zipped and key in lists:
            continue
        if _scalar(inner) or key in lists:
            # a figure beside a name is that name's and its key the measure; with no name beside it, the key names it
            facts += value_facts(inner, names + beside, key) if beside else value_facts(inner, (*names, key), measure)
        elif isinstance(inner, dict):
            facts += value_facts(inner, (*names, key), measure)
        else:
            facts += value_facts(inner, names + beside, key)
    return facts


def reference_values(question: Question) -> list[Any]:
    """The `insight_value`s a question is checked against (a flag's open-ended question: all its insights')."""
    evidence = question.evidence or {}
    if evidence.get("kind") == "insightbench-insight":
        return [evidence.get("insight_value")]
    if evidence.get("kind") == "insightbench-flag":
        return list(evidence.get("insight_values") or [])
    return []


def reference_facts(question: Question) -> list[Fact]:
    """The figures of a question's reference values."""
    return [fact for value in reference_values(question) for fact in value_facts(value)]


def reference_numbers(question: Question) -> list[float]:
    """The distinct numbers of a question's reference values, in order."""
    return list(dict.fromkeys(fact.value for fact in reference_facts(question)))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def vocabulary(question: Question) -> set[str]:
    """The words of a question's ground truth (its insights, question and values: keys, names, units), plurals
    folded."""
    evidence = question.evidence or {}
    texts = [question.text, str(evidence.get("insight") or ""), *(str(t) for t in evidence.get("insights") or [])]
    texts.append(json.dumps(reference_values(question), ensure_ascii=False, default=str))
    return {_stem(word) for text in texts for word in _WORD.findall(text.lower().replace("_", " "))}


def _names(fact: Fact) -> tuple[str, ...]:
    """What may tie a claim to a figure: its names, and its measure's key as written and in words."""
    if not fact.measure:
        return fact.names
    return (*fact.names, fact.measure, fact.measure.replace("_", " "))


def _named(name: str, clause: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", clause, re.IGNORECASE) is not None


def _place(claim: Claim) -> int | None:
    """Where a claim's figure stands on its own in its clause, dates left out (None: only inside a date or not
    found)."""
    masked = _DATE_LIKE.sub(lambda found: " " * len(found[0]), claim.clause)
    found = re.search(rf"(?<![\w.,]){re.escape(claim.text)}(?![\w])", masked)
    return found.start() if found else None


def _after(claim: Claim) -> list[str]:
    """The words right after a claim's figure in its clause."""
    at = _place(claim)
    return [] if at is None else _WORD.findall(claim.clause[at + len(claim.text) :][:50].lower())


def _counted_word(claim: Claim) -> str | None:
    """The word right after a claim's figure that says what it counts ("teams" in "2 teams"), if one does."""
    following = _after(claim)
    return next((_stem(word) for word in following[:3] if not _FUNCTION_WORD.fullmatch(word)), None)


def not_a_value(claim: Claim) -> str | None:
    """Why a figure of the prose is no value at all (part of a date, a question's number), else None."""
    at = _place(claim)
    if at is None:
        return "part of a date" if claim.text in claim.clause else None
    if _REFERENCE.search(claim.clause[:at]):
        return "a reference to a question or figure"
    return None


def _relative(claim: Claim) -> bool:
    """Whether the figure is a difference or a multiple ("6 incidents difference", "20% higher", "3 times")."""
    return any(_RELATIVE.fullmatch(word) for word in _after(claim)[:4])


class InsightValuesJudge(JudgeScorer):
    """The share of the ground truth's numbers an answer states, and the share of its figures it denies."""

    name = "insight_values"
    version = "1"
    infos = (
        ScoreInfo(
            "insight_values",
            "values",
            "share of the ground-truth insight's numbers (insight_value) that the answer states",
            needs=frozenset({"reference"}),
            headline=True,
            kind="judge",
        ),
        ScoreInfo(
            "insight_values.contradicted",
            "values contra",
            "share of the answer's figures that a ground-truth value named in their clause contradicts",
            higher_is_better=False,
            needs=frozenset({"reference"}),
            kind="judge",
        ),
    )
    needs_model = False
    default_rubric = None
    Options = InsightValuesOptions
    options: InsightValuesOptions

    def applies(self, question: Question) -> bool:
        """InsightBench questions whose ground truth holds a number."""
        return bool(reference_numbers(question))

    def _checker(self) -> FaithfulnessJudge:
        return FaithfulnessJudge(about=self.options.about, gold=False)

    def verdict(self, claim: Claim, facts: list[Fact], words: set[str]) -> tuple[bool, str]:
        """Whether a numeric claim contradicts the reference's facts, and why."""
        checker = self._checker()
        percent = claim.kind == "percent"
        comparable = [fact for fact in facts if fact.percent == percent]
        if any(checker.check(claim, [Table("value", None, [[fact.value]])])[0] == SUPPORTED for fact in comparable):
            return False, f"{claim.text}: a ground-truth figure"
        about = [fact for fact in comparable if any(_named(name, claim.clause) for name in _names(fact))]
        if not about:
            return False, f"{claim.text}: about no ground-truth figure's name or measure"
        if _relative(claim):
            return False, f"{claim.text}: a difference or multiple, not a value"
        counted = _counted_word(claim)
        if counted is not None and counted not in words:
            return False, f"{claim.text}: counts {counted}, which the ground truth does not"
        # a figure of the same names but no one fact (a share of two, a total) is still theirs
        rows = [[fact.value] for fact in about]
        if checker.check(claim, [Table("the named figures", None, rows)])[0] == SUPPORTED:
            return False, f"{claim.text}: from the named figures"
        names = ", ".join(dict.fromkeys(name for fact in about for name in _names(fact) if _named(name, claim.clause)))
        given = ", ".join(f"{fact.value:g}" for fact in about[:4])
        return True, f"{claim.text}: the ground truth gives {names} {given}"

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        """Check each reference number against the answer's claims, and each claim against the reference facts."""
        facts = reference_facts(question)
        words = vocabulary(question)
        checker = self._checker()
        claims: list[Claim] = [
            c for c in extract_claims(answer.text or "") if c.kind in _NUMERIC and not not_a_value(c)
        ]
        numbers = reference_numbers(question)
        stated = [
            n for n in numbers if any(checker.check(c, [Table("value", None, [[n]])])[0] == SUPPORTED for c in claims)
        ]
        verdicts = [self.verdict(claim, facts, words) for claim in claims]
        contradicted = sum(1 for denied, _ in verdicts if denied)
        metrics = {
            f"value {i}": {"score": 1 if n in stated else 0, "reason": f"{n:g} {'stated' if n in stated else 'absent'}"}
            for i, n in enumerate(numbers, start=1)
        } | {
            f"claim {i}": {"dimension": "contradicted", "score": int(denied), "reason": reason}
            for i, (denied, reason) in enumerate(verdicts, start=1)
        }
        return Judgement(
            scores={
                "insight_values": len(stated) / len(numbers) if numbers else None,
                "insight_values.contradicted": contradicted / len(claims) if claims else 0.0,
            },
            sub_scores={"numbers": len(numbers), "stated": len(stated), "claims": len(claims), "sub_metrics": metrics},
            rationale=f"{len(stated)} of {len(numbers)} ground-truth numbers stated; "
            f"{contradicted} of {len(claims)} figures contradicted",
        )
