"""ResponseCache: completions on disk, keyed on provider, model, messages and parameters."""

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path

from biarena.llm.types import ChatRequest, Completion


def cache_key(provider: str, model: str, request: ChatRequest) -> str:
    """A stable hash of everything that determines a reply (not the structured-output level it is sent at)."""
    fields = asdict(request)
    fields.pop("structured", None)
    payload = json.dumps([provider, model, fields], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """An SQLite file of completions; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS completions (key TEXT PRIMARY KEY, body TEXT NOT NULL)")

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
        )

    def put(self, key: str, completion: Completion) -> None:
        """Store a completion."""
        body = json.dumps(
            {
                "text": completion.text,
                "prompt_tokens": completion.prompt_tokens,
                "completion_tokens": completion.completion_tokens,
                "finish_reason": completion.finish_reason,
                "structured": completion.structured,
            }
        )
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO completions VALUES (?, ?)", (key, body))
