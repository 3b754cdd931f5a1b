"""read_jsonl: the records of a JSON Lines file with their line numbers; bad JSON or UTF-8 names the line."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from biarena.benchmarks.json_file import decode_text, parse_json
from biarena.errors import FormatError, NotFoundError


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) for every non-blank line; FormatError for a line that is not JSON."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}: file not found") from None
    except OSError as error:
        raise FormatError(f"{path}: cannot be read ({error.strerror or error})") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path} line {number}"
            line = decode_text(raw, where)
            if not line.strip():
                continue
            yield number, parse_json(line, where, one_line=True)
