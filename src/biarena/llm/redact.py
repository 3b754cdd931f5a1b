"""redact: the one step that keeps keys out of what biarena stores or prints (URLs, headers, errors, a server's
word on what its model is).

A key reaches biarena only from the environment (`api_key_env`, `key_headers`); each one read is remembered here
for the life of the process, so a server that quotes it back (in an error, in its `/v1/models` entry) is masked
wherever its words are kept.
"""

import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
"""What a key is replaced with."""

_SHORTEST_SECRET = 8
"""Values shorter than this are not masked inside text: a short value (`test`) would mask ordinary words wherever
they occur, and real keys are far longer."""

_KEY_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "key",
        "passwd",
        "password",
        "secret",
        "sig",
        "signature",
        "token",
    }
)
"""Words that make a header, query parameter or field a key's (`X-Api-Key`, `Authorization`, `access_token`)."""

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>()\[\]{}]+", re.IGNORECASE)
_BEARER = re.compile(r"\b(bearer)\s+[^\s'\",;]+", re.IGNORECASE)

_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Mask `value` wherever text is redacted from now on (a key just read from the environment)."""
    if value and len(value) >= _SHORTEST_SECRET:
        with _secrets_lock:
            _secrets.add(value)


def is_key_name(name: str) -> bool:
    """Whether a header, query parameter or field named `name` carries a key: `Authorization`, `api-key`,
    `X-Api-Key`, `access_token`, `Ocp-Apim-Subscription-Key`, ..."""
    lowered = name.lower()
    words = set(re.split(r"[^a-z0-9]+", lowered))
    return bool(words & _KEY_WORDS) or "apikey" in re.sub(r"[^a-z0-9]", "", lowered)


def url_key_part(url: str) -> str | None:
    """What in a URL carries a key, in words that do not quote it (`user:password@`, `?api-key=`); None for nothing."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if "@" in parts.netloc:
        return "user:password@"
    names = (name for name, sep, _ in (item.partition("=") for item in parts.query.split("&")) if sep)
    return next((f"?{name}=" for name in names if is_key_name(name)), None)


def redact_url(url: str) -> str:
    """`url` with its userinfo and every query value masked (`http://***@host/v1?api-key=***`); else unchanged."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    if "@" not in parts.netloc and not parts.query:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
    query = "&".join(
        f"{name}={MASK}" if sep else name for name, sep, _ in (item.partition("=") for item in parts.query.split("&"))
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """`text` without the keys this process has read, a bearer token, or a URL's userinfo and query values."""
    with _secrets_lock:
        # the longest first, so a key that contains another is masked whole
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda match: f"{match.group(1)} {MASK}", text)
    return _URL.sub(lambda match: redact_url(match.group(0)), text)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers with the value of each one that carries a key masked, and the rest redacted as text."""
    return {name: MASK if is_key_name(name) else redact_text(value) for name, value in headers.items()}


def redact(value: Any) -> Any:
    """A value (text, or JSON-like data) redacted throughout: in a mapping, a field named like a key is masked
    whole; every text is passed through `redact_text`."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {
            key: MASK if isinstance(key, str) and is_key_name(key) and isinstance(item, str) and item else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(redact(item) for item in value)
    return value


__all__ = [
    "MASK",
    "is_key_name",
    "redact",
    "redact_headers",
    "redact_text",
    "redact_url",
    "remember_secret",
    "url_key_part",
]
