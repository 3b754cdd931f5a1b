"""The RunSpec record: what a run is, stored at the head of its run file."""

import hashlib
import json
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class BenchmarkFingerprint(BaseModel):
    """Checksums of what a run's answers depend on besides the questions themselves."""

    model_config = ConfigDict(extra="forbid")

    databases: dict[str, str] = Field(default_factory=dict)
    """Database name -> `sha256:<hex>` of its file, or `url:<location>` for a server database."""
    setting: str = ""
    """SHA-256 of the benchmark's knowledge, clock anchor and database descriptions and dialects."""
    questions: str = ""
    """SHA-256 of the run's questions (their full records, in id order)."""


class RunSpec(BaseModel):
    """The benchmark and system of a run; a resumed run must match it."""

    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    """Version of the run format."""
    benchmark: str
    """Benchmark as given: a built-in name or a directory path."""
    benchmark_name: str
    """The benchmark's own name."""
    system: str
    """System or agent name."""
    model: str | None = None
    """Model string, when the system uses one."""
    options: dict[str, Any] = Field(default_factory=dict)
    """System and runner options that change answers (predictions file, limits, db url)."""
    question_ids: list[str] = Field(default_factory=list)
    """The questions this run covers, in order."""
    label: str | None = None
    """How reports name the run (`run --label`; by default the run file's stem and the system's options)."""
    fingerprint: BenchmarkFingerprint | None = None
    """Checksums of the benchmark the run was made on; a resume on a different one is refused."""
    biarena_version: str = ""
    """biarena version that created the run."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When the run was created."""

    def differences(self, other: "RunSpec") -> list[str]:
        """What makes `other` ask for other answers than this run holds (empty: it may resume this run)."""
        found = []
        for name in ("benchmark_name", "system", "model"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                found.append(f"{name.replace('_', ' ')} is {_show(mine)} there, {_show(theirs)} here")
        for key in sorted(set(self.options) | set(other.options)):
            mine, theirs = self.options.get(key), other.options.get(key)
            if mine != theirs:
                found.append(f"option {key} is {_show(mine)} there, {_show(theirs)} here")
        if self.fingerprint is not None and other.fingerprint is not None:
            found.extend(_fingerprint_differences(self.fingerprint, other.fingerprint))
        return found

    @property
    def run_id(self) -> str:
        """A short id naming this run wherever its file is copied or relabelled: a hash of its benchmark, system,
        model, options and creation time (none of which a resume or a wider selection changes)."""
        identity = [self.benchmark_name, self.system, self.model, self.options, self.created_at.isoformat()]
        text = json.dumps(identity, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def default_label(self, stem: str) -> str:
        """A label from the run file's stem and what distinguishes the system: name, model, short options."""
        parts = [] if stem == self.system else [self.system]
        parts += self._distinctions()
        return f"{stem} ({', '.join(parts)})" if parts else stem

    def given_label(self) -> str | None:
        """The label someone chose (`run --label`), or None when the stored label is the default one."""
        if not self.label:
            return None
        suffix = ", ".join(self._distinctions())
        with_system = f" ({', '.join([self.system, suffix] if suffix else [self.system])})"
        if self.label.endswith(with_system) or self.label == self.system:
            return None
        if suffix and self.label == f"{self.system} ({suffix})":
            return None
        return self.label

    def _distinctions(self) -> list[str]:
        parts = [self.model] if self.model else []
        for key, value in sorted(self.options.items()):
            if key == "model" or key.endswith("sha256") or value is None or isinstance(value, dict | list):
                continue
            text = PurePath(str(value)).name if key == "predictions" else _clip(str(value), 40)
            parts.append(text if key in ("predictions", "target") else f"{key}={text}")
        return parts


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _show(value: Any) -> str:
    if value is None:
        return "not set"
    text = str(value)
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return text[:12] + "…"
    return repr(_clip(text, 80)) if isinstance(value, str) else _clip(text, 80)


def _fingerprint_differences(mine: BenchmarkFingerprint, theirs: BenchmarkFingerprint) -> list[str]:
    found = []
    for name in sorted(set(mine.databases) | set(theirs.databases)):
        old, new = mine.databases.get(name), theirs.databases.get(name)
        if old != new:
            if old is None or new is None:
                found.append(f"database '{name}' is {'absent' if old is None else 'present'} there")
            else:
                found.append(f"database '{name}' differs (checksum {_short(old)} there, {_short(new)} here)")
    if mine.setting and theirs.setting and mine.setting != theirs.setting:
        found.append("the benchmark's knowledge, clock anchor or database descriptions differ")
    return found


def _short(checksum: str) -> str:
    kind, _, value = checksum.partition(":")
    return f"{kind}:{value[:12]}…" if kind == "sha256" else checksum
