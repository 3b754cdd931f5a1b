"""shown: a value from an input file, fit to sit inside a one-line message."""


def shown(value: object, limit: int | None = 80) -> str:
    """`value` as text with control characters escaped (never a line break), cut at `limit` characters."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(value))
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"
