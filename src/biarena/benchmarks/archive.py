"""Database files out of archives, under a size budget and a ratio check, accepted only when they are SQLite."""

import re
import shutil
import sqlite3
import zipfile
import zlib
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO

from pydantic import BeforeValidator, Field

from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, UsageError
from biarena.options import Shown

SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_MAX_DB_SIZE = 4 * 1024**3
"""Largest database an archive may expand to, unless the user says otherwise (max_db_size)."""
MAX_RATIO = 100
"""Largest expansion of an archive's bytes: real databases compress far less; a zip bomb far more."""
RATIO_FLOOR = 1024**2
"""Below this many bytes written the ratio is not judged (tiny files compress arbitrarily well)."""
_CHUNK = 1024**2
_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "kib": 1024, "m": 1000**2, "mb": 1000**2, "mib": 1024**2}
_UNITS |= {"g": 1000**3, "gb": 1000**3, "gib": 1024**3, "t": 1000**4, "tb": 1000**4, "tib": 1024**4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def parse_size(text: str) -> int:
    """Bytes in a size such as `4GiB`, `500MB`, `1.5G` or `1048576`; UsageError for anything else."""
    match = _SIZE.match(text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        raise UsageError(f"'{shown(text)}' is not a size (e.g. 4GiB, 500MB, 1048576)")
    size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise UsageError(f"'{shown(text)}': a size must be more than 0 bytes")
    return size


def format_size(size: int) -> str:
    """A byte count the way a person reads it: 4GiB, 1MB, 2 bytes."""
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024), ("GB", 1000**3), ("MB", 1000**2)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size} bytes" if size < 10_000 else f"{size / 1024**2:.1f}MiB"


def _size(value: Any) -> Any:
    """A size as given: a number of bytes, or text such as 4GiB or 500MB."""
    if not isinstance(value, str):
        return value
    try:
        return parse_size(value)
    except UsageError:
        raise ValueError("not a size (e.g. 4GiB, 500MB, 1048576)") from None


Size = Annotated[int, Shown("size", format_size), BeforeValidator(_size), Field(gt=0)]
"""An option that is a size in bytes, given as a number or as text such as 4GiB."""


def is_sqlite(path: Path) -> bool:
    """True when the file starts with SQLite's header."""
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def check_sqlite(path: Path, where: str) -> Path:
    """Return `path` when it is a readable SQLite database with at least one table; FormatError says why not."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(200)
    if not head.startswith(SQLITE_HEADER):
        if head.startswith(b"version https://git-lfs"):
            raise FormatError(f"{where}: a Git LFS pointer, not the database (fetch it with `git lfs pull`)")
        raise FormatError(f"{where}: not an SQLite database ({_describe(head, size)})")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise FormatError(f"{where}: not a readable SQLite database ({error})") from None
    if not tables:
        raise FormatError(f"{where}: an SQLite database with no tables")
    return path


def _describe(head: bytes, size: int) -> str:
    if size == 0:
        return "an empty file"
    if size < 64:
        return f"{size} bytes"
    return f"{size} bytes starting {head[:8]!r}"


@dataclass
class Budget:
    """Bytes a database may take, and the archive bytes they come from (for the ratio check)."""

    limit: int
    source: str
    compressed: int = 0
    written: int = 0

    def take(self, count: int) -> None:
        """Count `count` more bytes written; FormatError when over the size limit or the ratio."""
        self.written += count
        if self.written > self.limit:
            raise FormatError(f"{self.source}: the database is larger than max_db_size {format_size(self.limit)}")
        if self.written > max(RATIO_FLOOR, MAX_RATIO * self.compressed):
            raise FormatError(
                f"{self.source}: expands more than {MAX_RATIO} times its {format_size(self.compressed)} "
                "(a zip bomb, not a database)"
            )


def _copy(source: BinaryIO, out: BinaryIO, budget: Budget) -> None:
    while chunk := source.read(_CHUNK):
        budget.take(len(chunk))
        out.write(chunk)


def _members(zipped: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    return [m for m in zipped.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]


def _open_zip(path: Path, source: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        size = path.stat().st_size
        detail = f"{size} bytes" if size < 64 else str(error)
        raise FormatError(f"{source}: not a zip archive ({detail})") from None


def extract_database(archive: Path, target: Path, budget: Budget, prefer: str = "") -> Path:
    """Write the one database file of a zip archive to `target` (a member named `prefer` wins); FormatError."""
    budget.compressed += archive.stat().st_size
    with _open_zip(archive, budget.source) as zipped:
        members = [m for m in _members(zipped) if m.filename.lower().endswith(_DB_SUFFIXES)]
        if not members:
            raise FormatError(f"{budget.source}: the archive holds no .db, .sqlite or .sqlite3 file")
        preferred = [m for m in members if Path(m.filename).stem == prefer]
        if len(members) > 1 and not preferred:
            names = ", ".join(m.filename for m in members)
            raise FormatError(f"{budget.source}: the archive holds several databases ({names}); expected one")
        member = (preferred or members)[0]
        _write_members(zipped, [member], target, budget, "wb")
    return target


def _write_members(
    zipped: zipfile.ZipFile, members: Iterable[zipfile.ZipInfo], target: Path, budget: Budget, mode: str
) -> None:
    with target.open(mode) as out:
        for member in members:
            if member.file_size > budget.limit:
                raise FormatError(
                    f"{budget.source}: {member.filename} says it is {format_size(member.file_size)}, larger than "
                    f"max_db_size {format_size(budget.limit)}"
                )
            try:
                with zipped.open(member) as data:
                    _copy(data, out, budget)
            except FormatError:
                raise
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as error:
                raise FormatError(f"{budget.source}: {member.filename} cannot be extracted ({error})") from None


def join_parts(parts: list[Path], target: Path, budget: Budget, workdir: Path) -> Path:
    """Join a database split into numbered zip parts: each a zip of one piece, or one zip cut into pieces."""
    budget.compressed += sum(p.stat().st_size for p in parts)
    if all(zipfile.is_zipfile(p) for p in parts):
        target.write_bytes(b"")
        for part in parts:
            with _open_zip(part, f"{budget.source} ({part.name})") as zipped:
                members = sorted(_members(zipped), key=lambda m: m.filename)
                _write_members(zipped, members, target, budget, "ab")
        return target
    joined = workdir / (target.name + ".zip")
    with joined.open("wb") as out:
        for part in parts:
            with part.open("rb") as data:
                shutil.copyfileobj(data, out, _CHUNK)
    budget.compressed -= sum(p.stat().st_size for p in parts)  # counted again by extract_database
    try:
        return extract_database(joined, target, budget, prefer=target.stem)
    finally:
        joined.unlink(missing_ok=True)
