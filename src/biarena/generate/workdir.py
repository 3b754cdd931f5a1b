"""WorkDir: a generation's output directory, with a journal of finished steps so a killed run continues."""

import hashlib
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from biarena.benchmarks import save_benchmark
from biarena.benchmarks.native import BENCHMARK_FILE, QUESTIONS_FILE
from biarena.errors import FormatError, UsageError
from biarena.generate.validation import VALIDATION_FILE
from biarena.records import Benchmark

JOURNAL_FILE = "progress.jsonl"
"""One JSON line per finished step (its key and result); the first line holds the generation's settings."""
_BENCHMARK_PARTS = (BENCHMARK_FILE, QUESTIONS_FILE, "databases")


class BudgetExhausted(Exception):
    """The model-call budget (`--max-calls`) is spent; what is journaled so far is kept."""


class WorkDir:
    """The output directory of `generate questions` or `generate answers`: journal, side files and the benchmark.

    A new directory must be absent or empty; one holding a journal continues when its settings are the same, and
    `force` starts it over. The benchmark files are written last, in place of any earlier ones.
    """

    def __init__(self, root: Path, settings: dict[str, Any], *, force: bool = False) -> None:
        self.root = root
        self.journal_path = root / JOURNAL_FILE
        self.entries: dict[str, Any] = {}
        self.resumed = False
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise FormatError(f"{root}: exists and is not a directory")
        if root.is_dir() and any(root.iterdir()):
            if not self.journal_path.is_file():
                raise FormatError(f"{root}: already exists, is not empty and holds no generation to continue")
            stored = self._read()
            if stored != settings:
                if not force:
                    differ = sorted(k for k in {*stored, *settings} if stored.get(k) != settings.get(k))
                    raise UsageError(
                        f"{root} holds a generation with other settings ({', '.join(differ)}); "
                        "choose another -o, or --force to start it over"
                    )
                if (root / VALIDATION_FILE).exists():
                    raise UsageError(f"{root} holds people's validation decisions; --force will not delete them")
                self.entries.clear()
                self._clear()
            else:
                self.resumed = True
        root.mkdir(parents=True, exist_ok=True)
        if not self.journal_path.is_file():
            self._append({"settings": settings})

    def _read(self) -> dict[str, Any]:
        settings: dict[str, Any] = {}
        with self.journal_path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short when the run was killed: that step is simply done again
                if number == 0:
                    if not isinstance(record, dict) or "settings" not in record:
                        raise FormatError(f"{self.journal_path}: line 1 does not hold the generation's settings")
                    settings = record["settings"]
                elif isinstance(record, dict) and "key" in record:
                    self.entries[str(record["key"])] = record.get("value")
        return settings

    def _clear(self) -> None:
        for child in self.root.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()

    def _append(self, record: dict[str, Any]) -> None:
        with self.journal_path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def get(self, key: str) -> Any:
        """The journaled result of step `key` (None when it has not finished)."""
        return self.entries.get(key)

    def done(self, key: str) -> bool:
        """True when step `key` has finished."""
        return key in self.entries

    def put(self, key: str, value: Any) -> Any:
        """Journal the result of step `key` (durably, before the next step starts); return it."""
        self.entries[key] = value
        self._append({"key": key, "value": value})
        return value

    def write_json(self, name: str, data: Any) -> Path:
        """Write a side file (pipeline.json) atomically."""
        return self._atomic(name, json.dumps(data, ensure_ascii=False, indent=2) + "\n")

    def write_jsonl(self, name: str, records: list[dict[str, Any]]) -> Path:
        """Write a JSON-lines side file (checks.jsonl) atomically."""
        return self._atomic(name, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))

    def _atomic(self, name: str, text: str) -> Path:
        target = self.root / name
        temporary = self.root / f".{name}.{secrets.token_hex(4)}"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
        return target

    def save(self, benchmark: Benchmark) -> Path:
        """Write the benchmark files into the directory, replacing earlier ones and keeping the journal."""
        staging = self.root / f".benchmark-{secrets.token_hex(4)}"
        try:
            save_benchmark(benchmark, staging)
            for part in _BENCHMARK_PARTS:
                old = self.root / part
                if old.is_dir() and not old.is_symlink():
                    shutil.rmtree(old)
                if (staging / part).exists():
                    os.replace(staging / part, old)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return self.root


class CallBudget:
    """Counts the uncached calls of one or more models against `--max-calls`."""

    def __init__(self, models: list[Any], max_calls: int | None) -> None:
        unique: dict[int, Any] = {id(m): m for m in models}
        self.models = list(unique.values())
        self.max_calls = max_calls

    @property
    def calls(self) -> int:
        """Uncached calls made so far (repairs of invalid replies included)."""
        return sum(m.usage.snapshot().calls for m in self.models)

    def check(self) -> None:
        """Raise BudgetExhausted when no call is left."""
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise BudgetExhausted(f"stopped at the --max-calls budget ({self.max_calls} model calls)")


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (a generation continues only over the same database)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
