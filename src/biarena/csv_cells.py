"""spreadsheet_safe: a CSV cell that a spreadsheet shows as text, never runs as a formula."""

from typing import Any

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """`value`, with text that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, CR first) quoted by a
    leading apostrophe; other values unchanged. Exported text comes from models and annotators: untrusted."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(row: dict[str, Any]) -> dict[str, Any]:
    """Every text cell of a CSV row made spreadsheet-safe."""
    return {key: spreadsheet_safe(value) for key, value in row.items()}
