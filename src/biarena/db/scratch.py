"""scratch_dir: this process's private temporary area for engine spill files, removed at exit (and, should the process
be killed before its exit handlers run, by the next biarena process that makes one)."""

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_root: Path | None = None
_PREFIX = "biarena-sandbox-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but is another user's, or the platform cannot tell
        return True
    return True


def _sweep(base: Path) -> None:
    """Remove the scratch areas that killed processes left behind (their pid is in the name)."""
    for stale in base.glob(f"{_PREFIX}*-*"):
        pid = stale.name[len(_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)


def scratch_dir(name: str) -> Path:
    """A directory `name` in the process's temporary area (under $BIARENA_TMPDIR when set), removed at exit."""
    global _root
    with _lock:
        if _root is None or not _root.is_dir():
            base = os.environ.get("BIARENA_TMPDIR") or None
            if base:
                Path(base).mkdir(parents=True, exist_ok=True)
            _sweep(Path(base or tempfile.gettempdir()))
            _root = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=base))
            atexit.register(shutil.rmtree, _root, True)
        path = _root / name
        path.mkdir(exist_ok=True)
        return path
