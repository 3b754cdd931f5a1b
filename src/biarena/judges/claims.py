"""Claims an answer's prose makes that data can check: numbers (with percent, money and scale units, thousands
separators, Chinese numerals), dates, and rank statements ("the busiest month is 2024-12", "最多的是华东").

`extract_claims` finds them, each with what may tie it to a result: the queries it cites ("(query 2)", "查询2")
and the sentence's clause it sits in (where a result's labels may appear).
"""

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["number", "percent", "money", "date", "rank"]

_CN_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_LARGE = {"万": 10_000, "亿": 100_000_000}
_CN_CHARS = "零〇一二两三四五六七八九十百千万亿"
SCALES = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "bn": 1e9,
    "billion": 1e9,
    "千": 1e3,
    "万": 1e4,
    "百万": 1e6,
    "亿": 1e8,
}
_CURRENCY = r"(?:[$€£¥]|USD|EUR|RMB|CNY)"
_SCALE = r"(?:thousand|million|billion|bn|mn|k|m|百万|千|万|亿)"
_PERCENT = r"(?:%|％|\s?per\s?cent\b|\s?percent\b|个百分点)"
_NUMBER = re.compile(
    rf"(?<![A-Za-z0-9_.,])(?P<currency>{_CURRENCY}\s?)?(?P<sign>[+\-−]?)"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<scale>{_SCALE})(?![A-Za-z]))?(?P<percent>{_PERCENT})?(?P<unit>\s?(?:元|美元|dollars?|euros?))?"
    r"(?![\d,]\d)",
    re.IGNORECASE,
)
_CN_NUMBER = re.compile(rf"(?P<percent>百分之)?(?P<digits>[{_CN_CHARS}]+(?:点[零〇一二两三四五六七八九]+)?)")
_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b")
_SKIPPED = re.compile(
    r"\b\d{4}-\d{2}(?:-\d{2})?(?:[ T]\d{2}:\d{2}(?::\d{2})?)?"  # dates (claims of their own)
    r"|\b\d{1,2}:\d{2}(?::\d{2})?"  # times
    r"|\b(?:19|20)\d{2}\b(?!\.\d|,\d{3})"  # years
    r"|\d{4}\s?年|\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?|第\s?\d+"  # Chinese dates and ordinals
    r"|\b(?:quer(?:y|ies)|steps?|ids?|no\.|number|#)\s*\d+(?:(?:\s*,\s*|\s+and\s+|\s*-\s*)\d+)*"  # references
    r"|(?:查询|步骤)\s?\d+"
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s\d{1,2}"
    r"(?:(?:\s*[-–]\s*|\s+(?:to|and)\s+)\d{1,2})?\b",
    re.IGNORECASE,
)
_CITED = re.compile(
    r"(?:\b(?:quer(?:y|ies)|steps?)|查询|步骤)\s*(\d+(?:(?:\s*,\s*|\s+and\s+|\s*-\s*|、|和)\d+)*)", re.IGNORECASE
)
_TOP = "busiest|largest|biggest|highest|top|most|best|leading|strongest|peak"
_BOTTOM = "quietest|smallest|lowest|least|weakest|worst|slowest"
_RANK = re.compile(
    rf"\b(?:the\s+)?(?P<word>{_TOP}|{_BOTTOM})\b(?:\s+[\w-]+){{0,4}}?\s+(?:is|was|are|were)\s+(?P<rest>[^,;:()\n]+)",
    re.IGNORECASE,
)
_CN_RANK = re.compile(r"最(?P<word>多|高|大|少|低|小)的[^，。；,;]{0,10}?(?:是|为)(?P<rest>[^，。；,;\s]+)")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_CLAUSE = re.compile(r"[;；]")


@dataclass(frozen=True)
class Claim:
    """One checkable statement of the prose."""

    text: str
    """The claim as written."""
    kind: Kind
    value: float | None = None
    """The number (scale applied; a percent as written, 12.5 for 12.5%)."""
    decimals: int = 0
    """Decimals written: the claim is read as rounded to them."""
    scale: float = 1.0
    label: str | None = None
    """A date as written, or the value a rank claim names."""
    top: bool = True
    """For a rank claim: the highest (True) or the lowest."""
    about: bool = False
    """Hedged ("about", "around", "约"): a looser match is allowed."""
    cited: tuple[int, ...] = ()
    """The queries the sentence cites (1-based)."""
    clause: str = ""
    """The clause the claim sits in."""


def chinese_number(text: str) -> float | None:
    """The value of a Chinese numeral ("三千五百", "两万", "十二", "三点五"); None when it is not one."""
    whole, _, fraction = text.partition("点")
    if fraction and not all(c in _CN_DIGITS for c in fraction):
        return None
    total, section, digit = 0, 0, None
    for char in whole:
        if char in _CN_DIGITS:
            digit = _CN_DIGITS[char]
        elif char in _CN_SMALL:
            section += (1 if digit is None else digit) * _CN_SMALL[char]
            digit = None
        elif char in _CN_LARGE:
            section += digit or 0
            total += (section or 1) * _CN_LARGE[char]
            section, digit = 0, None
        else:
            return None
    value = float(total + section + (digit or 0))
    if fraction:
        value += float("0." + "".join(str(_CN_DIGITS[c]) for c in fraction))
    return value


def _cited(sentence: str) -> tuple[int, ...]:
    found: list[int] = []
    for match in _CITED.finditer(sentence):
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        if re.search(r"\d\s*-\s*\d", match.group(1)) and len(numbers) == 2:
            numbers = list(range(numbers[0], numbers[1] + 1))
        found += numbers
    return tuple(dict.fromkeys(found))


def _about(clause: str, start: int) -> bool:
    before = clause[max(0, start - 16) : start].lower()
    hedged = r"\b(?:about|around|roughly|approximately|nearly|almost|some|~)\s*$|(?:约|近)(?:为|是|有)?\s*$"
    return bool(re.search(hedged, before))


def _numbers(clause: str, cited: tuple[int, ...]) -> list[Claim]:
    skipped = [m.span() for m in _SKIPPED.finditer(clause)]
    claims = []
    for match in _NUMBER.finditer(clause):
        if any(a <= match.start("digits") < b for a, b in skipped):
            continue
        digits = match["digits"]
        value = float(digits.replace(",", ""))
        if match["sign"] in ("-", "−"):
            value = -value
        scale = SCALES.get((match["scale"] or "").lower(), 1.0)
        kind: Kind = "percent" if match["percent"] else ("money" if match["currency"] or match["unit"] else "number")
        if kind == "percent" and "个百分点" in match["percent"]:
            kind = "number"  # percentage points compare as plain numbers
        claims.append(
            Claim(
                text=match.group(0).strip(),
                kind=kind,
                value=value * scale,
                decimals=len(digits.split(".")[1]) if "." in digits else 0,
                scale=scale,
                about=_about(clause, match.start()),
                cited=cited,
                clause=clause,
            )
        )
    taken = [m.span() for m in _NUMBER.finditer(clause)]
    for match in _CN_NUMBER.finditer(clause):
        digits = match["digits"]
        if any(a <= match.start() < b for a, b in taken) or all(c in "十百千万亿" for c in digits):
            continue  # the scale of an Arabic number ("3.5万"), or a scale word alone
        if digits in ("一", "两") and not match["percent"]:
            continue  # "一个", "两者": words more often than figures
        value = chinese_number(digits)
        if value is None:
            continue
        decimals = len(digits.partition("点")[2])
        claims.append(
            Claim(
                text=match.group(0),
                kind="percent" if match["percent"] else "number",
                value=value,
                decimals=decimals,
                about=_about(clause, match.start()),
                cited=cited,
                clause=clause,
            )
        )
    return claims


def _ranks(clause: str, cited: tuple[int, ...]) -> list[Claim]:
    claims = []
    for match in _RANK.finditer(clause):
        word = match["word"].lower()
        claims.append(
            Claim(
                text=match.group(0).strip(),
                kind="rank",
                label=match["rest"].strip(),
                top=word in _TOP.split("|"),
                cited=cited,
                clause=clause,
            )
        )
    for match in _CN_RANK.finditer(clause):
        claims.append(
            Claim(
                text=match.group(0),
                kind="rank",
                label=match["rest"].strip(),
                top=match["word"] in "多高大",
                cited=cited,
                clause=clause,
            )
        )
    return claims


def extract_claims(text: str) -> list[Claim]:
    """Every checkable claim of the prose, in order: numbers, dates and rank statements."""
    claims: list[Claim] = []
    for sentence in _SENTENCE.split(text or ""):
        cited = _cited(sentence)
        for clause in _CLAUSE.split(sentence):
            claims += _ranks(clause, cited)
            claims += [Claim(m.group(0), "date", label=m.group(0), clause=clause) for m in _DATE.finditer(clause)]
            claims += _numbers(clause, cited)
    return claims
