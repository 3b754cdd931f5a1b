"""benchmark_fingerprint: checksums of a benchmark's databases and setting, so a resume can tell it is the same."""

import hashlib
import json
import os
import re
import threading
from pathlib import Path

from biarena.benchmarks.builtin import cache_dir
from biarena.db import DatabasePool
from biarena.db.dialect import file_engines
from biarena.records import Benchmark, Question
from biarena.records.runspec import BenchmarkFingerprint

_CACHE_FILE = "checksums.json"
_CACHE_ENTRIES = 1000
_cache_lock = threading.Lock()


def benchmark_fingerprint(benchmark: Benchmark, pool: DatabasePool, questions: list[Question]) -> BenchmarkFingerprint:
    """Checksums of the databases the pool reads, of the benchmark's setting and of `questions`."""
    databases = {}
    for name in sorted(benchmark.databases):
        location = pool.location(name)
        file = _local_file(location)
        if file is not None:
            databases[name] = "sha256:" + file_sha256(file)
        else:
            databases[name] = "url:" + re.sub(r"//([^/@:]*):[^/@]*@", r"//\1:***@", location)
    setting = {
        "knowledge": benchmark.knowledge,
        "now": benchmark.now.isoformat() if benchmark.now else None,
        "databases": {n: [r.dialect, r.description] for n, r in sorted(benchmark.databases.items())},
    }
    return BenchmarkFingerprint(databases=databases, setting=_digest(setting), questions=questions_sha256(questions))


def _local_file(location: str) -> Path | None:
    """The file a database location reads (a path, or a file engine's SCHEME:///PATH URL); None for a server."""
    scheme, sep, rest = location.partition(":///")
    if sep and scheme.split("+")[0].lower() in file_engines():
        location = rest
    elif "://" in location:
        return None
    path = Path(location)
    return path if path.is_file() else None


def questions_sha256(questions: list[Question]) -> str:
    """SHA-256 of full question records, in id order."""
    return _digest([_question_record(q) for q in sorted(questions, key=lambda q: q.id)])


_LATER_FIELDS = ("knowledge", "gold_results")
"""Question fields added after runs were first fingerprinted: left out when unset, so older runs still match."""


def _question_record(question: Question) -> dict:
    record = question.model_dump(mode="json")
    for name in _LATER_FIELDS:
        if not record.get(name):
            record.pop(name, None)
    return record


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, remembered by (path, size, mtime) so a large database is read once."""
    resolved = path.resolve()
    info = resolved.stat()
    key = f"{resolved}|{info.st_size}|{info.st_mtime_ns}"
    cache_path = cache_dir() / _CACHE_FILE
    with _cache_lock:
        cache = _read_cache(cache_path)
        if key in cache:
            return cache[key]
    with resolved.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    with _cache_lock:
        cache = _read_cache(cache_path)
        cache = {k: v for k, v in cache.items() if not k.startswith(f"{resolved}|")}
        cache[key] = digest
        cache = dict(list(cache.items())[-_CACHE_ENTRIES:])
        _write_cache(cache_path, cache)
    return digest


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _read_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def _write_cache(path: Path, cache: dict[str, str]) -> None:
    """Write the cache atomically; a cache that cannot be written only costs a re-hash next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        temporary.write_text(json.dumps(cache, indent=0, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass
