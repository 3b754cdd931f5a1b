"""capped_upload: an upload's request body refused as soon as it grows past the arena's limit, never read whole."""

from starlette.requests import Request
from starlette.types import Message

from biarena.arena.store import ArenaRefusal

FORM_ALLOWANCE = 64 * 1024
"""Bytes an upload's form may take beyond the file itself: the other fields and the multipart headers."""


def too_large(limit: int, size: int | None = None) -> str:
    """What a submitter reads when the file is over `limit` bytes (`size`: what the request declared)."""
    told = f" ({size:,} bytes)" if size is not None else ""
    return f"the file is too large{told}: the arena takes run files of at most {limit:,} bytes"


def capped_upload(request: Request, limit: int) -> Request:
    """The request with a body refused (413) as soon as more than `limit` + FORM_ALLOWANCE bytes of it arrive.

    A declared Content-Length is checked before reading; this also stops a body sent without one (chunked), so an
    oversized upload is never read whole, into memory or onto disk.
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit + FORM_ALLOWANCE:
        raise ArenaRefusal(too_large(limit, int(declared)), 413)
    received = 0
    receive = request.receive

    async def counted() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit + FORM_ALLOWANCE:
                raise ArenaRefusal(too_large(limit), 413)
        return message

    return Request(request.scope, counted)
