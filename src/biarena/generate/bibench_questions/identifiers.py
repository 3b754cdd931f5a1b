"""named_identifier: the table or column name a question text spells out, if any."""

import re

_COMPOUND = re.compile(r"[_0-9]|[a-z][A-Z]")


def _spellings(identifier: str) -> list[str]:
    """How a text may spell an identifier: as written, and with underscores (or camelCase humps) as spaces."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", identifier.replace("_", " ")).strip()
    spaced = re.sub(r"\s+", " ", spaced)
    return list(dict.fromkeys(s for s in (identifier, spaced) if s))


def named_identifier(text: str, identifiers: list[str]) -> str | None:
    """The first identifier that `text` names (case-insensitive, on word boundaries), or None.

    A compound identifier (`order_total`, `appId`, `q3_sales`) counts as named when written as it is or with its
    underscores or humps as spaces ("order total", "order totals"). A one-word identifier (`price`, `category`) is
    an ordinary business word, so it counts only when written as code, in backticks.
    """
    for identifier in sorted(set(identifiers), key=len, reverse=True):
        if not identifier.strip():
            continue
        if _COMPOUND.search(identifier):
            for spelling in _spellings(identifier):
                words = r"\s+".join(re.escape(part) for part in spelling.split(" "))
                if re.search(rf"(?<![\w]){words}(?:e?s)?(?![\w])", text, flags=re.IGNORECASE):
                    return identifier
        elif re.search(rf"`{re.escape(identifier)}`", text, flags=re.IGNORECASE):
            return identifier
    return None
