"""A run file on disk: recognizing one without changing it, creating one atomically, and locking it for a writer."""

import os
import sqlite3
import stat
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from biarena.errors import BiarenaError, FormatError
from biarena.runner.damaged_run import DamagedRunFile
from biarena.runner.run_format import MIGRATIONS, RUN_MAGIC, migrate_run

try:
    import fcntl
except ImportError:  # Windows: runs are not locked there
    fcntl = None  # type: ignore[assignment]


class RunInUse(BiarenaError):
    """Another process is writing the run file."""


def recognize_run_file(path: Path) -> None:
    """Raise FormatError unless `path` is a biarena run file; reads it without changing a byte."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror})") from None
    if stat.S_ISDIR(mode):
        raise FormatError(f"{path}: is a directory, not a run file")
    if not stat.S_ISREG(mode):
        raise FormatError(f"{path}: not a biarena run file (not a regular file)")
    if os.path.getsize(path) == 0:
        raise FormatError(f"{path}: not a biarena run file (an empty file)")
    # immutable: no locks, no journal, no -wal or -shm beside a file that may belong to someone else
    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    version, magic = _read_magic(uri)
    wal = Path(f"{path}-wal")
    if (not magic or magic[0] != RUN_MAGIC) and wal.is_file() and wal.stat().st_size > 0:
        # a database already in WAL use (a run killed before its first checkpoint): read it with its log
        version, magic = _read_magic(f"file:{quote(str(path.resolve()))}?mode=ro")
    if not magic and _run_shaped(uri):
        raise DamagedRunFile(path, "meta", "the table is missing or has no 'magic' row; it was left as it is")
    if not magic or magic[0] != RUN_MAGIC:
        kind = "an SQLite database of something else" if version or _is_sqlite(uri) else "not even an SQLite file"
        raise FormatError(f"{path}: not a biarena run file ({kind}); it was left as it is")
    if version > len(MIGRATIONS):
        raise FormatError(f"{path}: made by a newer biarena (run format {version})")


def _read_magic(uri: str) -> tuple[int, tuple | None]:
    """The user version and the magic row of the database at `uri` ((0, None) when it has none)."""
    version, magic = 0, None
    for attempt in range(3):
        try:
            conn = sqlite3.connect(uri, uri=True)
        except sqlite3.Error:
            return 0, None
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            magic = conn.execute("SELECT value FROM meta WHERE key = 'magic'").fetchone() if version else None
            break
        except sqlite3.DatabaseError as error:
            # not a database at all, or a page caught mid-write by a checkpoint of a live run: look again
            if "malformed" not in str(error) or attempt == 2:
                version, magic = 0, None
                break
            time.sleep(0.05)
        finally:
            conn.close()
    return version, magic


def _run_shaped(uri: str) -> bool:
    """Whether the database has the tables only a run file has (its meta table may be gone)."""
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return {"questions", "answers", "results"} <= names


def _is_sqlite(uri: str) -> bool:
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return True
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def create_run_file(path: Path) -> None:
    """Make an empty run file at `path`: built beside it, then linked into place only if `path` is still free."""
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise FormatError(f"cannot create run file {path}: {blocking} is a file, not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FormatError(f"cannot create run file {path}: {error.strerror or error}") from None
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            migrate_run(conn, temporary)
        finally:
            conn.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: it is resumed (or refused) like any existing file
        except OSError:
            if not path.exists():  # a file system without hard links
                os.replace(temporary, path)
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise FormatError(f"cannot create run file {path}: {reason}") from None
    finally:
        temporary.unlink(missing_ok=True)


def lock_run_file(path: Path) -> int | None:
    """Hold an exclusive lock on the run file; RunInUse when another process holds it."""
    if fcntl is None:
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunInUse(
            f"{path} is being written by another biarena process; wait for it to finish or choose another -o"
        ) from None
    except OSError:  # a file system without locks: go on unlocked
        os.close(fd)
        return None
    return fd
