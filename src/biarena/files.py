"""Files written whole or not at all, with the permissions the user's umask gives a new file."""

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from biarena.errors import UsageError


def umask() -> int:
    """The process's umask (read without changing it where the system allows)."""
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def usual_mode(path: str | Path) -> None:
    """Give `path` the mode a plain new file or folder gets under the umask (mkstemp and mkdtemp make them private)."""
    base = 0o777 if Path(path).is_dir() else 0o666
    os.chmod(path, base & ~umask())


def writable_target(path: Path) -> None:
    """Refuse an output path that names a folder or sits under a file, in one line."""
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; give the path of a file to write")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise UsageError(f"{path}: {parent} is not a directory")


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; when the block succeeds it becomes `path` (with usual permissions)."""
    writable_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as error:
        raise UsageError(f"{path}: cannot write ({error.strerror or error})") from None
    os.close(handle)
    temp = Path(temp_name)
    try:
        yield temp
        usual_mode(temp)
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()


def write_atomically(path: Path, write: Callable[[Path], None]) -> Path:
    """Call `write(temp)` and move the result to `path`: a failure never leaves a half-written file."""
    with replacing(path) as temp:
        write(temp)
    return path
