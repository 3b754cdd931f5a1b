"""read_jsonl: the records of a JSON Lines file with their line numbers; bad JSON names the line."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from biarena.errors import FormatError


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for every non-blank line; FormatError for a line that is not JSON."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as error:
                raise FormatError(f"{path} line {number}: invalid JSON: {error.msg} (column {error.colno})") from None
