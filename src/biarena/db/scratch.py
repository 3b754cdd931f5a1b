"""scratch_dir: this process's private temporary area for engine spill files, removed at exit."""

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_root: Path | None = None


def scratch_dir(name: str) -> Path:
    """A directory `name` in the process's temporary area (under $BIARENA_TMPDIR when set), removed at exit."""
    global _root
    with _lock:
        if _root is None or not _root.is_dir():
            base = os.environ.get("BIARENA_TMPDIR") or None
            if base:
                Path(base).mkdir(parents=True, exist_ok=True)
            _root = Path(tempfile.mkdtemp(prefix="biarena-sandbox-", dir=base))
            atexit.register(shutil.rmtree, _root, True)
        path = _root / name
        path.mkdir(exist_ok=True)
        return path
