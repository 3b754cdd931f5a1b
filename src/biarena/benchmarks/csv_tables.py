"""Typed CSV tables: a CSV file's columns read as integers, reals, dates, timestamps or text, and written into a
new database file of any engine biarena writes tables into (`db.file_tools`)."""

import csv
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from biarena.benchmarks.json_file import decode_text
from biarena.benchmarks.shown import shown
from biarena.db.file_tools import Column, Kind, TablesRefused, engine_tools, table_engines
from biarena.db.open_database import DEFAULT_FILE_ENGINE
from biarena.errors import FormatError

Engine = Literal[table_engines()]  # type: ignore[valid-type]
"""The engines a CSV table may be written into (their names, as `-O engine=` takes them)."""

_INTEGER = re.compile(r"[+-]?(?:0|[1-9]\d*)")
_REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?")
_INT64 = 2**63


def _moment(text: str) -> datetime | None:
    """A timestamp written `YYYY-MM-DD HH:MM[:SS[.fraction]]` (nanoseconds cut to microseconds), or a date alone."""
    if _DATE.fullmatch(text):
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            return None
    found = _MOMENT.fullmatch(text)
    if found is None:
        return None
    day, clock, fraction = found.groups()
    micro = f".{(fraction + '000000')[:6]}" if fraction else ""
    try:
        return datetime.fromisoformat(f"{day} {clock}{micro}")
    except ValueError:
        return None


def _typed(cells: list[str]) -> tuple[Kind, list[Any]]:
    """The narrowest kind every non-empty cell fits, and the cells as values of that kind."""
    filled = [c for c in cells if c != ""]
    if not filled:
        return "text", [None] * len(cells)
    if all(_INTEGER.fullmatch(c) for c in filled) and all(abs(int(c)) < _INT64 for c in filled):
        return "integer", [int(c) if c else None for c in cells]
    if all(_REAL.fullmatch(c) for c in filled):
        return "real", [float(c) if c else None for c in cells]
    if all(_DATE.fullmatch(c) for c in filled):
        days = [_moment(c) for c in filled]
        if all(d is not None for d in days):
            return "date", [date.fromisoformat(c) if c else None for c in cells]
    moments = [_moment(c) for c in filled]
    if all(m is not None for m in moments):
        return "timestamp", [_moment(c) if c else None for c in cells]
    return "text", [c if c else None for c in cells]


def _names(header: list[str], where: str) -> list[str]:
    """Column names as the header gives them; an empty one becomes column_N, a repeated one gets _2, _3, ..."""
    names: list[str] = []
    taken: set[str] = set()
    for index, raw in enumerate(header, start=1):
        name = raw.strip() or f"column_{index}"
        if "\0" in name:
            raise FormatError(f"{where}: column {index}: a NUL character in its name")
        candidate, counter = name, 2
        while candidate.lower() in taken:
            candidate, counter = f"{name}_{counter}", counter + 1
        taken.add(candidate.lower())
        names.append(candidate)
    return names


def read_csv_table(path: Path) -> list[Column]:
    """The columns of a CSV file with a header line, each typed; FormatError names the file and line of a problem."""
    text = decode_text(path.read_bytes(), str(path)).lstrip("\ufeff")
    try:
        rows = list(csv.reader(text.splitlines(keepends=True)))
    except csv.Error as error:
        raise FormatError(f"{path}: not a readable CSV file ({error})") from None
    rows = [r for r in rows if r]
    if not rows:
        raise FormatError(f"{path}: empty (a CSV file with a header line was expected)")
    names = _names(rows[0], str(path))
    body = rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) > len(names) and any(cell.strip() for cell in row[len(names) :]):
            raise FormatError(f"{path} row {number}: {len(row)} cells for {len(names)} columns")
    cells = [[row[j] if j < len(row) else "" for row in body] for j in range(len(names))]
    return [Column(name, *_typed(values)) for name, values in zip(names, cells, strict=True)]


def write_tables(target: Path, tables: dict[str, list[Column]], engine: str = DEFAULT_FILE_ENGINE) -> None:
    """Create the database file `target` of `engine` holding each table (name -> typed columns)."""
    try:
        engine_tools(engine).write_tables(target, tables)
    except TablesRefused as refused:
        raise FormatError(f"{target}: {shown(str(refused), limit=200)}") from None
