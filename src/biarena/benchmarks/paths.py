"""Paths derived from input, kept inside their directory: no `..`, no absolute paths, no links out."""

import re
import stat
from pathlib import Path

from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, NotFoundError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def plain_name(name: str, where: str) -> str:
    """Return `name` when it can name a file in a folder; FormatError for `..`, separators, NUL or absolute."""
    if not name.strip() or name in (".", "..") or any(ch in name for ch in "/\\\0"):
        raise FormatError(f"{where}: '{shown(name)}' is not a plain name (no '/', '\\', '..' or absolute paths)")
    return name


def inside(root: Path, relative: str | Path, where: str) -> Path:
    """Resolve `relative` under `root`; FormatError when it is absolute or leads (through `..` or a link) outside."""
    if Path(relative).is_absolute():
        raise FormatError(f"{where}: '{relative}' is an absolute path (give a path inside {root})")
    return confined(root, root / relative, where)


def confined(root: Path, path: Path, where: str) -> Path:
    """Return `path` resolved; FormatError when it lies outside `root` once `..` and links are followed."""
    base = root.resolve()
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError) as error:  # a loop of links
        raise FormatError(f"{where}: {path}: cannot be resolved ({error})") from None
    if not resolved.is_relative_to(base):
        if path.is_symlink():
            raise FormatError(f"{where}: {path} is a link to {resolved}, outside {base}")
        raise FormatError(f"{where}: {path} leads to {resolved}, outside {base}")
    return resolved


def regular_file(path: Path, where: str) -> Path:
    """Return `path` when it is a regular file (not a folder, device or pipe); NotFoundError or FormatError."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise NotFoundError(f"{where}: {path}: file not found") from None
    except OSError as error:
        raise FormatError(f"{where}: {path}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise FormatError(f"{where}: {path}: not a regular file")
    return path


def safe_file_name(name: str, suffix: str, taken: set[str]) -> str:
    """A file name for `name` made of letters, digits, '.', '_' and '-', unique among `taken` (which it joins)."""
    stem = _UNSAFE.sub("_", name).strip("._-")[:80] or "database"
    candidate, counter = stem + suffix, 2
    while candidate.lower() in taken:
        candidate, counter = f"{stem}-{counter}{suffix}", counter + 1
    taken.add(candidate.lower())
    return candidate
