"""Text and JSON input files read strictly: bad UTF-8, bad JSON, deep nesting and huge numbers are FormatErrors."""

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from biarena.errors import FormatError
from biarena.text_file import decode_text, read_text

__all__ = ["decode_text", "json_objects", "parse_json", "read_json", "read_text", "text_field"]

Place = TypeVar("Place")


def parse_json(text: str, where: str, *, one_line: bool = False) -> Any:
    """Parse JSON text; FormatError names where it broke (line and column; `one_line`: `where` names the line)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        if one_line:
            raise FormatError(f"{where}: invalid JSON: {error.msg} (column {error.colno})") from None
        raise FormatError(f"{where} line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}") from None
    except RecursionError:
        raise FormatError(f"{where}: invalid JSON: nested too deeply") from None
    except ValueError as error:  # an integer beyond Python's conversion limit (4300 digits)
        raise FormatError(f"{where}: invalid JSON: {str(error).split(':')[0]}") from None


def read_json(path: Path) -> Any:
    """Read a UTF-8 JSON file strictly."""
    return parse_json(read_text(path), str(path))


def text_field(item: dict, key: str, where: str, *, required: bool = False) -> str | None:
    """Field `key` of a JSON object as stripped text (numbers accepted as text); None when empty, unless required."""
    value = item.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise FormatError(f"{where}: missing field '{key}'")
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise FormatError(f"{where}: field '{key}' must be text, not {type(value).__name__}")
    return str(value).strip()


def json_objects(entries: Iterable[tuple[Place, Any]], at: str) -> Iterator[tuple[Place, str, dict[str, Any]]]:
    """Each (place, value) of `entries` as (place, where, object), `where` naming it `{at} {place}`; FormatError at
    the first value that is not a JSON object."""
    for place, item in entries:
        where = f"{at} {place}"
        if not isinstance(item, dict):
            raise FormatError(f"{where}: expected an object")
        yield place, where, item
