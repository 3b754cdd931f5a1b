"""Wording helpers for templated questions in English and Chinese."""

import re

AGGREGATION_WORDS: dict[str, dict[str, str]] = {
    "sum": {"en": "total", "zh": "总"},
    "avg": {"en": "average", "zh": "平均"},
    "max": {"en": "maximum", "zh": "最大"},
    "min": {"en": "minimum", "zh": "最小"},
    "count": {"en": "number of", "zh": "数量"},
}

_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def zh(*parts: str) -> str:
    """Join Chinese and Latin fragments the way people write them: a space only at a script change."""
    out = ""
    for part in parts:
        if not part:
            continue
        if out and not out.endswith(" ") and not part.startswith(" "):
            left_cjk = bool(_CJK.match(out[-1]))
            right_cjk = bool(_CJK.match(part[0]))
            if left_cjk != right_cjk and out[-1] not in "，。？：" and part[0] not in "，。？：":
                out += " "
        out += part
    return out


def plural(word: str) -> str:
    """English plural of a business noun ("special features" is one already)."""
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def sql_literal(value: object) -> str:
    """A value as an SQL literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def english_date(iso: str) -> str:
    """`2023-01-09` -> `9 January 2023`."""
    months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    year, month, day = (int(p) for p in iso[:10].split("-"))
    return f"{day} {months[month - 1]} {year}"


def chinese_date(iso: str) -> str:
    """`2023-01-09` -> `1月9日`."""
    _, month, day = (int(p) for p in iso[:10].split("-"))
    return f"{month}月{day}日"
