"""Sanitizing what systems return so it can always be stored as JSON text."""

from typing import Any


def clean_text(text: str) -> tuple[str, int]:
    """Return `text` with lone surrogates replaced by U+FFFD (split pairs are joined), and how many were replaced."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        joined = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return joined, joined.count("\ufffd") - text.count("\ufffd")
    return text, 0


def clean_value(value: Any, where: str = "") -> tuple[Any, dict[str, int]]:
    """Clean every string inside a JSON-like value; return it and the number of replacements per path."""
    changes: dict[str, int] = {}

    def walk(item: Any, path: str) -> Any:
        if isinstance(item, str):
            cleaned, count = clean_text(item)
            if count:
                changes[path or "value"] = changes.get(path or "value", 0) + count
            return cleaned
        if isinstance(item, dict):
            return {walk(k, path) if isinstance(k, str) else k: walk(v, _join(path, str(k))) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(item)]
        return item

    return walk(value, where), changes


def describe_changes(changes: dict[str, int]) -> str:
    """One line saying how many lone surrogates were replaced, and where."""
    total = sum(changes.values())
    places = ", ".join(list(changes)[:5]) + (", …" if len(changes) > 5 else "")
    return f"{total} lone surrogate{'s' if total != 1 else ''} replaced with U+FFFD in {places}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
