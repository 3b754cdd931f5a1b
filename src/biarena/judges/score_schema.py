"""score_schema: the JSON schema of an integer score on a judge's scale."""

from typing import Any


def score_schema(low: int, high: int) -> dict[str, Any]:
    """An integer score from `low` to `high`, as an `enum` of its values: llama.cpp's grammar enforces an enum but
    not `minimum`/`maximum` (the embedded model once scored a CORGI sub-metric -100 on the 0-5 scale)."""
    return {"type": "integer", "enum": list(range(low, high + 1))}
