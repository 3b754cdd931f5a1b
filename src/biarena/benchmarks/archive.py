"""Database files out of archives, under a size budget and a ratio check, accepted only when they are SQLite.

An archive is read only after every member it lists passes `check_member`: no name that leaves the archive or is
absolute, no link or special file, at most MAX_MEMBERS members, archives nested at most MAX_NESTING deep. Member
names never become paths here (a member's bytes go to the target the caller names), so these checks refuse an
archive made to attack an extractor rather than guard this one.
"""

import re
import shutil
import sqlite3
import stat
import zipfile
import zlib
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from struct import error as struct_error
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
MAX_MEMBERS = 10_000
"""Most members an archive may list: published databases come one to an archive, a few parts at most."""
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
"""Largest list of members (the zip's central directory) read; a longer one is refused before it is parsed."""
MAX_NESTING = 3
"""Most archives one inside another: a zip of the database is 1, a zip of that zip 2."""
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


_DRIVE = re.compile(r"^[A-Za-z]:")


class UnsafeArchive(FormatError):
    """An archive built to escape its folder or to exhaust the importer (a member named `../x` or `/x`, a link,
    too many members, archives nested too deep): refused with the whole import, never skipped like a database
    that is merely missing."""


def check_member(member: zipfile.ZipInfo, source: str) -> None:
    """FormatError unless the member is a plain file or folder whose name stays inside the archive.

    Both separators count ('\\' is Windows's), so `..\\x` leaves too; `/x`, `C:\\x`, `C:x` and `\\\\host\\x` are
    absolute; the mode bits of a Unix-made member must say file or folder, not link, device, pipe or socket.
    """
    name = member.filename.replace("\\", "/")
    why = ""
    if name.startswith("/") or _DRIVE.match(name):
        why = "is an absolute path"
    elif ".." in name.split("/"):
        why = "leaves the archive's folder (..)"
    else:
        kind = stat.S_IFMT(member.external_attr >> 16)
        if kind == stat.S_IFLNK:
            why = "is a symbolic link"
        elif kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            why = "is not a file (a device, pipe or socket)"
    if why:
        raise UnsafeArchive(f"{source}: member '{shown(member.filename)}' {why}; the archive is refused")


def _members(zipped: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    return [m for m in zipped.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]


def _listed(path: Path) -> tuple[int, int] | None:
    """(members, bytes of the central directory) the zip's end record declares, read without parsing the list."""
    try:
        with path.open("rb") as handle:
            end = zipfile._EndRecData(handle)  # type: ignore[attr-defined]  # the reader zipfile itself uses
    except (OSError, struct_error, ValueError):
        return None
    if not end:
        return None
    return int(end[zipfile._ECD_ENTRIES_TOTAL]), int(end[zipfile._ECD_SIZE])  # type: ignore[attr-defined]


def _too_many(count: int, source: str) -> UnsafeArchive:
    return UnsafeArchive(
        f"{source}: lists {count:,} members, more than {MAX_MEMBERS:,} members; the archive is refused"
    )


def _open_zip(path: Path, source: str) -> zipfile.ZipFile:
    """The zip at `path` once its list of members is within limits and each member passes `check_member`."""
    listed = _listed(path)
    if listed is not None:
        count, directory = listed
        if count > MAX_MEMBERS:
            raise _too_many(count, source)
        if directory > MAX_DIRECTORY_BYTES:
            raise UnsafeArchive(
                f"{source}: its list of members takes {format_size(directory)}, more than {MAX_MEMBERS:,} members "
                "could need; the archive is refused"
            )
    try:
        zipped = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        size = path.stat().st_size
        detail = f"{size} bytes" if size < 64 else str(error)
        raise FormatError(f"{source}: not a zip archive ({detail})") from None
    try:
        members = zipped.infolist()
        if len(members) > MAX_MEMBERS:  # an end record that understates the list
            raise _too_many(len(members), source)
        for member in members:
            check_member(member, source)
    except BaseException:
        zipped.close()
        raise
    return zipped


def _stem(member: zipfile.ZipInfo) -> str:
    return PurePosixPath(member.filename.replace("\\", "/")).stem


def extract_database(archive: Path, target: Path, budget: Budget, prefer: str = "") -> Path:
    """Write the one database file of a zip archive to `target` (a member named `prefer` wins); FormatError.

    An archive holding no database but one zip is opened in turn, down to MAX_NESTING archives; every byte written
    on the way counts against the budget. On failure `target` is removed, so nothing half-written stays.
    """
    budget.compressed += archive.stat().st_size
    try:
        return _extract(archive, target, budget, prefer, 1)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _extract(archive: Path, target: Path, budget: Budget, prefer: str, depth: int) -> Path:
    with _open_zip(archive, budget.source) as zipped:
        listed = _members(zipped)
        members = [m for m in listed if m.filename.lower().endswith(_DB_SUFFIXES)]
        if not members:
            inner = _pick([m for m in listed if m.filename.lower().endswith(".zip")], prefer)
            if inner is None:
                raise FormatError(f"{budget.source}: the archive holds no .db, .sqlite or .sqlite3 file")
            if depth >= MAX_NESTING:
                raise UnsafeArchive(
                    f"{budget.source}: archives nested more than {MAX_NESTING} deep; the archive is refused"
                )
            nested = target.with_name(f"{target.name}.{depth}.zip")
            try:
                _write_members(zipped, [inner], nested, budget, "wb")
                return _extract(nested, target, budget, prefer, depth + 1)
            finally:
                nested.unlink(missing_ok=True)
        preferred = [m for m in members if _stem(m) == prefer]
        if len(members) > 1 and not preferred:
            names = ", ".join(shown(m.filename) for m in members[:5]) + (", ..." if len(members) > 5 else "")
            raise FormatError(f"{budget.source}: the archive holds several databases ({names}); expected one")
        member = (preferred or members)[0]
        _write_members(zipped, [member], target, budget, "wb")
    return target


def _pick(archives: list[zipfile.ZipInfo], prefer: str) -> zipfile.ZipInfo | None:
    """The one inner archive to open: the only one, or the one named after `prefer` (`prefer.db.zip`, `prefer.zip`)."""
    if len(archives) == 1:
        return archives[0]
    named = [m for m in archives if _stem(m) in (prefer, f"{prefer}.db")]
    return named[0] if len(named) == 1 else None


def _write_members(
    zipped: zipfile.ZipFile, members: Iterable[zipfile.ZipInfo], target: Path, budget: Budget, mode: str
) -> None:
    with target.open(mode) as out:
        for member in members:
            if member.file_size > budget.limit:
                raise FormatError(
                    f"{budget.source}: {shown(member.filename)} says it is {format_size(member.file_size)}, larger "
                    f"than max_db_size {format_size(budget.limit)}"
                )
            try:
                with zipped.open(member) as data:
                    _copy(data, out, budget)
            except FormatError:
                raise
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as error:
                raise FormatError(
                    f"{budget.source}: {shown(member.filename)} cannot be extracted ({error})"
                ) from None


def join_parts(parts: list[Path], target: Path, budget: Budget, workdir: Path) -> Path:
    """Join a database split into numbered zip parts: each a zip of one piece, or one zip cut into pieces.

    Every part is checked as `extract_database` checks an archive; on failure `target` is removed.
    """
    try:
        return _join(parts, target, budget, workdir)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _join(parts: list[Path], target: Path, budget: Budget, workdir: Path) -> Path:
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
