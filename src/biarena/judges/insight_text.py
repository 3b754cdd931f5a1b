"""How the `insight` scorer reads an answer's prose: clauses, what they assert and deny, causes, directions, sizes
of change, months and figures, with no model.

A clause is a sentence's part between semicolons. A clause *denies* what it names when it says so ("does not line
up", "ruled out", "unrelated", "is not the cause"); after "rather than", "instead of" or "not because" only the rest
of the clause is denied. A *causal* clause gives a reason ("because", "due to", "driven by", "caused by", "the driver
was", "led to", "因为", "由于"): the words after the cue are the cause it asserts.
"""

import calendar
import re
from dataclasses import dataclass

from biarena.judges.sentences import split_sentences

_CAUSAL = re.compile(
    r"\b(?:because(?:\s+of)?|due\s+to|owing\s+to|thanks\s+to|as\s+a\s+result\s+of|caused\s+by|driven\s+by|"
    r"triggered\s+by|explained\s+by|attributable\s+to|attributed\s+to|resulted\s+from|results\s+from|"
    r"stems?\s+from|stemmed\s+from|on\s+the\s+back\s+of|the\s+(?:main\s+|likely\s+|root\s+)?(?:cause|reason|driver)"
    r"\s+(?:is|was|were|lies\s+in)|(?:led|leads)\s+to|(?:is|was)\s+behind)\b|因为|由于|原因是",
    re.IGNORECASE,
)
_DENIED_AFTER = re.compile(r"\b(?:rather\s+than|instead\s+of|not\s+because(?:\s+of)?|not\s+due\s+to)\b", re.I)
_DENIES = re.compile(
    r"\b(?:do(?:es)?\s*n[o']t\s+line\s+up|did\s*n[o']t\s+line\s+up|not\s+line\s+up|ruled?\s+out|rules\s+out|"
    r"unrelated|no\s+(?:link|connection|relation|bearing)|cannot\s+explain|can't\s+explain|does\s*n[o']t\s+explain|"
    r"did\s*n[o']t\s+(?:cause|drive|explain)|(?:is|was)\s*n[o']t\s+(?:the\s+)?(?:cause|reason|driver|behind)|"
    r"not\s+(?:the\s+)?(?:cause|reason|driver)|played\s+no\s+part|had\s+no\s+(?:effect|impact))\b|不是原因|无关",
    re.IGNORECASE,
)
_WORD = re.compile(r"\d{4}-\d{2}-\d{2}|\d+(?:\.\d+)+|[^\W_]+", re.UNICODE)
STOP = frozenset(
    (
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "and",
        "or",
        "but",
        "as",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "our",
        "we",
        "they",
        "he",
        "she",
        "his",
        "her",
        "them",
        "which",
        "who",
        "what",
        "when",
        "where",
        "how",
        "why",
        "than",
        "then",
        "so",
        "such",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "after",
        "before",
        "during",
        "per",
        "each",
        "every",
        "all",
        "any",
        "some",
        "more",
        "most",
        "less",
        "few",
        "new",
        "up",
        "down",
        "out",
        "off",
        "not",
        "no",
        "nor",
        "only",
        "also",
        "very",
        "much",
        "many",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "row",
        "rows",
        "table",
        "started",
        "opened",
        "began",
        "begin",
        "event",
        "events",
        "because",
        "due",
    )
)
"""Words that name no cause (function words, counting words, generic event words)."""
_UP = re.compile(
    r"\b(?:rose|rise[sn]?|rising|gr[eo]w(?:n|s|ing)?|increas\w*|up|jump\w*|spik\w*|climb\w*|higher|highest|more|"
    r"doubl\w*|tripl\w*|surg\w*|soar\w*|larger|bigger|boost\w*|peak\w*|busier|busiest|strong\w*|lift\w*|gain\w*)\b|"
    r"上升|增长|增加|翻倍|更多|更高",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(?:f[ae]ll(?:s|en|ing)?|drop\w*|declin\w*|down|decreas\w*|lower|lowest|fewer|less|halv\w*|shr[au]nk\w*|"
    r"shrink\w*|slump\w*|dip\w*|weak\w*|trough|slow\w*|lull|smaller|quiet\w*|cut|cuts|lost|loss)\b|下降|减少|更少|更低",
    re.IGNORECASE,
)
_UP_VERB = r"rose|rise[sn]?|grew|grow[sn]?|increased|increases|up|jumped|climbed|higher|more|gained|lifted|surged"
_DOWN_VERB = r"fell|falls?|fallen|dropped|drops?|declined|declines?|down|decreased|shrank|lower|fewer|less|lost|cut"
_TIMES = re.compile(
    r"(?:[x×]\s*(?P<x>\d+(?:\.\d+)?)\b|\b(?P<times>\d+(?:\.\d+)?)\s*(?:times|x\b|×|-fold|fold)|"
    r"(?P<pct_sign>[+\-−])\s?(?P<pct>\d+(?:\.\d+)?)\s*%|"
    r"(?P<mpct>\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?P<cmp>more|fewer|less|higher|lower|above|below|up|down)\b|"
    rf"\b(?P<verb>{_UP_VERB}|{_DOWN_VERB})\s+(?:by\s+)?(?:about\s+|roughly\s+|around\s+|some\s+|nearly\s+|almost\s+|"
    r"over\s+)?(?P<vpct>\d+(?:\.\d+)?)\s*(?:%|percent))",
    re.IGNORECASE,
)
_WORD_CHANGES = (
    (re.compile(r"\b(?:doubled|twice|two\s+times|2x)\b", re.I), 2.0),
    (re.compile(r"\b(?:tripled|three\s+times|3x)\b", re.I), 3.0),
    (re.compile(r"\b(?:quadrupled|four\s+times)\b", re.I), 4.0),
    (
        re.compile(
            r"\b(?:halved|(?:by|to)\s+(?:about\s+|roughly\s+|around\s+|nearly\s+)?(?:a\s+|one\s+)?half)\b", re.I
        ),
        0.5,
    ),
    (re.compile(r"翻倍|翻了一番"), 2.0),
    (re.compile(r"减半"), 0.5),
)
MONTH_NAMES = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTH_NAMES |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name} | {"sept": 9}
_MONTH = re.compile(
    r"\b(?P<name>" + "|".join(sorted(MONTH_NAMES, key=len, reverse=True)) + r")\.?(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?"
    r"(?:\s+(?P<year>(?:19|20)\d{2}))?\b|\b(?P<iy>(?:19|20)\d{2})-(?P<im>\d{2})(?:-\d{2})?\b|"
    r"(?:(?P<cy>(?:19|20)\d{2})年)?(?P<cm>1[0-2]|[1-9])月",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.,])\d+(?:\.\d+)?(?![\d,]?\d)")


@dataclass(frozen=True)
class Clause:
    """One clause of the answer, with what it asserts and what it denies."""

    sentence: str
    """The sentence the clause belongs to (quoted in rationales)."""
    text: str
    asserted: str
    """The part it asserts (all of it, unless a denial cue covers some)."""
    denied: str
    """The part it denies ('' when none)."""
    cause: str | None
    """The cause an asserted causal cue gives (the words after the cue), else None."""
    advice: bool = False
    """In the answer's labelled recommendation ("Recommendation: ...", or under a "Recommendations" heading)."""


_ADVICE_LABEL = re.compile(r"^\s*(?:\*\*)?(?:recommend(?:ation|ations|ed\s+actions?)|next\s+steps?|建议)\b", re.I)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*[^*]+\*\*\s*$)")


def _sentences(text: str) -> list[tuple[str, bool]]:
    """The answer's sentences, each marked when it sits in the labelled recommendation."""
    out: list[tuple[str, bool]] = []
    under = False
    for line in text.splitlines():
        if _HEADING.match(line):
            under = bool(_ADVICE_LABEL.match(line.lstrip("#* ")))
            continue
        labelled = bool(_ADVICE_LABEL.match(line.lstrip("-*• ")))
        out += [(s, under or labelled) for s in split_sentences(line)]
    return out


def clauses(text: str, question: str = "") -> list[Clause]:
    """The answer's clauses in order (a restatement of the `question` left out: repeating it states nothing)."""
    out = []
    if question.strip():
        text = (text or "").replace(question.strip(), " ")
    for sentence, advice in _sentences(text or ""):
        for part in re.split(r"[;；]", sentence):
            part = part.strip()
            if not part:
                continue
            asserted, denied = part, ""
            if found := _DENIED_AFTER.search(part):
                # "not because each was worth less: X because Y": the denial ends at the colon or comma
                rest = part[found.end() :]
                end = re.search(r"[:,]", rest)
                denied = rest[: end.start()] if end else rest
                asserted = part[: found.start()] + (" " + rest[end.end() :] if end else "")
            elif _DENIES.search(part):
                asserted, denied = "", part
            cue = _CAUSAL.search(asserted)
            cause = asserted[cue.end() :].strip(" ,:") if cue else None
            out.append(Clause(sentence, part, asserted, denied, cause or None, advice))
    return out


def stem(word: str) -> str:
    """A word reduced to a crude stem, so `opened`, `opening` and `opens` compare equal."""
    word = word.lower()
    for suffix in ("ings", "ing", "ied", "ies", "ed", "es", "s", "'s"):
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix in ("ied", "ies") else "")
    return word


def terms(text: str, drop: frozenset[str] = frozenset()) -> frozenset[str]:
    """The content words of a text as stems (stop words and `drop` left out; dates and versions kept whole)."""
    out = set()
    for word in _WORD.findall(text.replace("_", " ").replace("-", " ") + " " + " ".join(_dates(text))):
        low = word.lower()
        if low in STOP or (low.isdigit() and len(low) < 4) or len(low) < 2:
            continue
        stemmed = stem(low)
        if stemmed not in drop:
            out.add(stemmed)
    return frozenset(out)


def _dates(text: str) -> list[str]:
    return re.findall(r"\d{4}-\d{2}-\d{2}", text)


def direction_of(text: str) -> int:
    """+1 when the words say up, -1 when they say down, 0 when both or neither."""
    up, down = bool(_UP.search(text)), bool(_DOWN.search(text))
    return 0 if up == down else (1 if up else -1)


def changes(text: str) -> list[tuple[float, str]]:
    """The sizes of change a text states, each as a factor (2.0 for "doubled", 0.4 for "fell by 60%") with the
    words that state it."""
    out: list[tuple[float, str]] = []
    for found in _TIMES.finditer(text):
        words = found.group(0)
        if found["x"] or found["times"]:
            out.append((float(found["x"] or found["times"]), words))
        elif found["pct"]:
            sign = -1 if found["pct_sign"] in "-−" else 1
            out.append((1 + sign * float(found["pct"]) / 100, words))
        elif found["vpct"]:
            up = re.fullmatch(_UP_VERB, found["verb"], re.IGNORECASE) is not None
            out.append((1 + (1 if up else -1) * float(found["vpct"]) / 100, words))
        elif found["mpct"]:
            sign = 1 if found["cmp"].lower() in ("more", "higher", "above", "up") else -1
            out.append((1 + sign * float(found["mpct"]) / 100, words))
    for pattern, factor in _WORD_CHANGES:
        out += [(factor, m.group(0)) for m in pattern.finditer(text)]
    return out


def months(text: str) -> list[tuple[int | None, int]]:
    """The months a text names, as (year or None, month)."""
    out = []
    for found in _MONTH.finditer(text):
        if found["name"]:
            ambiguous = found["name"].lower() in ("may", "mar", "march") and not found["year"]
            if ambiguous and not re.search(r"\b(?:in|of|on|during|since|until|by)\s+$", text[: found.start()], re.I):
                continue  # "may be partial", "march on": a month only with a year or after "in"
            out.append((int(found["year"]) if found["year"] else None, MONTH_NAMES[found["name"].lower().rstrip(".")]))
        elif found["iy"]:
            out.append((int(found["iy"]), int(found["im"])))
        else:
            out.append((int(found["cy"]) if found["cy"] else None, int(found["cm"])))
    return out


def numbers(text: str) -> list[float]:
    """The plain numbers a text states (thousands separators read; years, dates and query numbers included)."""
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]
