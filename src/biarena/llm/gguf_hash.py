"""gguf_sha256: a model file's SHA-256, computed once and remembered by (path, size, modification time)."""

import hashlib
import json
import os
import threading
from pathlib import Path

HASHES_FILE = "gguf-sha256.json"
"""Where the hashes of model files are remembered, in biarena's cache directory."""

_LOCK = threading.Lock()


def gguf_sha256(path: Path, cache: Path) -> str:
    """The SHA-256 of the file at `path`; read from `cache` when the file has not changed since it was hashed."""
    from biarena.llm.weights import FILENAME, SHA256, SIZE

    stat = path.stat()
    if path.name == FILENAME and stat.st_size == SIZE and _stamped(path):
        return SHA256  # the embedded model, verified when it was assembled
    key = str(path.resolve())
    store = cache / HASHES_FILE
    with _LOCK:
        known = _read(store)
        entry = known.get(key)
        if isinstance(entry, dict) and entry.get("size") == stat.st_size and entry.get("mtime_ns") == stat.st_mtime_ns:
            return str(entry["sha256"])
        digest = hashlib.sha256()
        with path.open("rb") as source:
            while chunk := source.read(8 << 20):
                digest.update(chunk)
        known[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest.hexdigest()}
        _write(store, known)
        return digest.hexdigest()


def _stamped(path: Path) -> bool:
    from biarena.llm.weights import SHA256

    stamp = path.with_suffix(".sha256")
    try:
        return stamp.read_text().strip() == SHA256
    except OSError:
        return False


def _read(store: Path) -> dict:
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(store: Path, known: dict) -> None:
    store.parent.mkdir(parents=True, exist_ok=True)
    temp = store.with_name(f".{store.name}.{os.getpid()}")
    temp.write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temp, store)
