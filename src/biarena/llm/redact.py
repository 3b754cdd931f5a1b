"""redact: the one step that keeps keys out of what biarena stores or prints (URLs, headers, errors, a server's
word on what its model is, and whatever a model server or a system under test says back).

A key reaches biarena only from the environment (`api_key_env`, `key_headers`); each one read is remembered here
for the life of the process, so a server that quotes it back (in a reply, an error, its `/v1/models` entry) is
masked wherever its words are kept: as written, URL-encoded (whole or in part), reversed, in hex, or in base64
(standard or URL-safe, padded or not, alone or inside a longer text such as `Bearer KEY` or `user:KEY`).
"""

import base64
import os
import re
import threading
from collections.abc import Iterable, Mapping
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
_pattern: tuple[frozenset[str], re.Pattern[str] | None] = (frozenset(), None)
"""The pattern that finds every form of the remembered keys, and the keys it was made for."""
_masked_replies = 0
"""Replies (and error bodies) that held a key, since the process started."""


def remember_secret(value: str | None) -> None:
    """Mask `value` wherever text is redacted from now on (a key just read from the environment)."""
    if value and len(value) >= _SHORTEST_SECRET:
        with _secrets_lock:
            _secrets.add(value)


def remember_environment_keys(names: Iterable[str]) -> None:
    """Mask the values of the environment variables `names` from now on: keys a system under test may hold (a
    command inherits the environment) and quote back, though biarena itself sent none."""
    for name in names:
        remember_secret(os.environ.get(name))


def _hex_digit(digit: int) -> str:
    """A hex digit as a pattern that takes either case (`%2f` and `%2F` are one byte)."""
    char = f"{digit:X}"
    return f"[{char}{char.lower()}]" if char.isalpha() else char


def _spelled(secret: str) -> str:
    """A pattern for `secret` with any of its characters written as it is or percent-encoded (`sk%2Dab`, `%73%6B`)."""
    parts = []
    for char in secret:
        encoded = "".join(f"%{_hex_digit(byte >> 4)}{_hex_digit(byte & 15)}" for byte in char.encode("utf-8"))
        parts.append(f"(?:{re.escape(char)}|{encoded})")
    return "".join(parts)


def base64_cores(secret: str) -> set[str]:
    """The base64 characters that `secret` alone decides wherever it stands in an encoded text: for each of the three
    alignments of its first byte, the characters whose six bits all come from its bytes, in both alphabets."""
    data = secret.encode("utf-8")
    cores = set()
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + data).decode("ascii").rstrip("=")
        first = -(-8 * shift // 6)  # the first character with no bit of the bytes before the key
        last = 8 * (shift + len(data)) // 6  # past the last character with every bit from the key
        core = encoded[first:last]
        cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


def _forms(secret: str) -> list[str]:
    """Patterns for every form a key is masked in: as written or percent-encoded, reversed, in hex, in base64."""
    literal = [re.escape(core) for core in base64_cores(secret)]
    hexed = f"(?i:{secret.encode('utf-8').hex()})"
    return [_spelled(secret), _spelled(secret[::-1]), hexed, *sorted(literal, key=len, reverse=True)]


def _key_pattern() -> re.Pattern[str] | None:
    """The pattern of every form of every key remembered (None: none is); made again when a key is added."""
    global _pattern
    with _secrets_lock:
        secrets = frozenset(_secrets)
        made_for, pattern = _pattern
        if secrets == made_for:
            return pattern
        # the longest first, so a key that contains another is masked whole
        forms = [form for secret in sorted(secrets, key=len, reverse=True) for form in _forms(secret)]
        pattern = re.compile("|".join(forms)) if forms else None
        _pattern = (secrets, pattern)
        return pattern


def mask_keys(text: str) -> str:
    """`text` with every form of every key this process has read masked."""
    pattern = _key_pattern()
    return pattern.sub(MASK, text) if pattern is not None else text


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
    text = mask_keys(text)
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


def _masked(value: Any) -> Any:
    """A value (text, or JSON-like data, its mappings' keys too) with every form of the keys masked."""
    if isinstance(value, str):
        return mask_keys(value)
    if isinstance(value, Mapping):
        return {_masked(key): _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_masked(item) for item in value)
    return value


def redact_reply(value: Any, *, error: bool = False) -> Any:
    """What a model server or a system under test said back (text, or JSON-like data), with every form of the keys
    masked, and counted (`replies_masked`) when it held one.

    A reply is otherwise kept as written (its SQL and prose may hold URLs and the word "Bearer"); an `error`'s words
    are redacted as `redact_text` does too."""
    masked = _masked(value)
    if masked != value:
        global _masked_replies
        with _secrets_lock:
            _masked_replies += 1
    return redact_text(masked) if error and isinstance(masked, str) else masked


def redact_start(text: str, *, whole: bool) -> str:
    """The start of what a server or a system said (`whole`: all of it), redacted as an error's words are and
    counted as `redact_reply` counts; a start cut off also loses its last characters, where the cut may have left a
    form of a key unfinished (too short to be found)."""
    masked = redact_reply(text)
    if not whole:
        with _secrets_lock:
            # the longest form is a key percent-encoded: three characters a byte
            longest = max((3 * len(secret.encode("utf-8")) for secret in _secrets), default=0)
        # masking only shortens, so what came from the text's last `longest` characters is within its last ones
        masked = masked[: max(0, len(masked) - longest)]
    return redact_text(masked)


def replies_masked() -> int:
    """How many replies (and error bodies) held a key, masked, since the process started."""
    with _secrets_lock:
        return _masked_replies


def masked_replies_line(count: int) -> str:
    """The notice that tells how many replies held a key."""
    return f"{count} {'reply' if count == 1 else 'replies'} held the API key; masked"


__all__ = [
    "MASK",
    "base64_cores",
    "is_key_name",
    "mask_keys",
    "masked_replies_line",
    "redact",
    "redact_headers",
    "redact_reply",
    "redact_start",
    "redact_text",
    "redact_url",
    "remember_environment_keys",
    "remember_secret",
    "replies_masked",
    "url_key_part",
]
