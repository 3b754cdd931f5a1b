"""ResponseCache: completions on disk, keyed on the request a provider sends and what the server says the model
is."""

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from biarena.llm.types import Completion, TokenLogprob, ToolCall


def cache_key(provider: str, model: str, sent: dict[str, Any], identity: dict[str, Any] | None = None) -> str:
    """A stable hash of everything that determines a reply: the request as the provider sends it (`sent`: its body,
    endpoint and headers, keys left out, at the first structured-output level) and what the server says the model
    is (`identity`) when it is known.

    Made of the request itself rather than of chosen options, so an option that changes the request changes the key.
    """
    payload = json.dumps([provider, model, sent, identity], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """An SQLite file of completions; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.execute("PRAGMA journal_mode = WAL")
        # A cache: after a power cut it may lack its last replies (asked again), never be corrupt; without an fsync
        # per stored reply, threads do not queue behind each other's writes.
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS completions (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
        self._conn.execute("CREATE TABLE IF NOT EXISTS identities (model TEXT PRIMARY KEY, identity TEXT NOT NULL)")

    def identity(self, model: str) -> dict[str, Any] | None:
        """What the server of `model` (a model string) last said the model is, as remembered here."""
        with self._lock:
            row = self._conn.execute("SELECT identity FROM identities WHERE model = ?", (model,)).fetchone()
        return json.loads(row[0]) if row else None

    def remember_identity(self, model: str, identity: dict[str, Any]) -> None:
        """Remember what the server of `model` says the model is."""
        body = json.dumps(identity, sort_keys=True, ensure_ascii=False)
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO identities VALUES (?, ?)", (model, body))

    def get(self, key: str) -> Completion | None:
        """The cached completion for `key`, marked as cached."""
        with self._lock:
            row = self._conn.execute("SELECT body FROM completions WHERE key = ?", (key,)).fetchone()
        if not row:
            return None
        data = json.loads(row[0])
        return Completion(
            text=data["text"],
            prompt_tokens=data["prompt_tokens"],
            completion_tokens=data["completion_tokens"],
            cached=True,
            finish_reason=data.get("finish_reason"),
            structured=data.get("structured"),
            tool_calls=tuple(ToolCall(**call) for call in data.get("tool_calls", ())),
            logprobs=tuple(
                TokenLogprob(token, logprob, tuple((text, value) for text, value in top))
                for token, logprob, top in data.get("logprobs", ())
            ),
        )

    def put(self, key: str, completion: Completion) -> None:
        """Store a completion."""
        fields = {
            "text": completion.text,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "finish_reason": completion.finish_reason,
            "structured": completion.structured,
        }
        if completion.tool_calls:
            fields["tool_calls"] = [asdict(call) for call in completion.tool_calls]
        if completion.logprobs:
            fields["logprobs"] = [[t.token, t.logprob, [list(pair) for pair in t.top]] for t in completion.logprobs]
        body = json.dumps(fields)
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO completions VALUES (?, ?)", (key, body))
