"""chat_app: a model behind OpenAI's chat completions API (`POST /v1/chat/completions`, `GET /v1/models`), as a
Starlette app; every reply goes through the model's one call path (cache, retries, redaction)."""

import asyncio
import hmac
import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from biarena.llm.model import Model
from biarena.llm.openai_wire import (
    DEFAULT_MAX_TOKENS,
    ChatCall,
    WireError,
    completion_body,
    completion_chunks,
    error_body,
    read_chat_call,
    sent_reply,
)
from biarena.llm.redact import redact_text
from biarena.llm.types import Completion, InvalidRequestError, ModelError, RetryableError

MAX_BODY = 32 * 1024 * 1024
"""The largest request body read (a long tool loop's conversation fits many times over)."""

KEEP_ALIVE_SECONDS = 10.0
"""How often a streamed reply that is still being written sends a comment line, so no client or proxy on the way
takes the quiet for a dead connection."""


def chat_app(model: Model, *, api_key: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> Starlette:
    """The app serving `model`; with `api_key`, a request must carry it as `Authorization: Bearer KEY`.

    `max_tokens` is a reply's budget when the request names none (the model's own `max_tokens` option caps any)."""
    served = model.spec

    async def models(request: Request) -> Response:
        entry = {"id": served, "object": "model", "created": 0, "owned_by": "biarena"}
        return JSONResponse({"object": "list", "data": [entry]})

    async def chat_completions(request: Request) -> Response:
        try:
            call = read_chat_call(json.loads(await _body(request)), max_tokens)
        except WireError as error:
            return _error(400, str(error), param=error.param)
        except ValueError as error:  # not JSON, or not UTF-8
            return _error(400, f"the body is not JSON: {error}")
        if call.request.tools is not None and not getattr(model.provider, "takes_tools", False):
            return _error(400, f"{served} takes no tools: serve the local or the mock model", param="tools")
        chat = model.sampled(call.request)
        reply_id, created = f"chatcmpl-{secrets.token_hex(12)}", int(time.time())
        if call.stream:
            return StreamingResponse(
                _stream(model, call, chat, served, reply_id, created),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        try:
            completion = await run_in_threadpool(model.complete, chat)
        except ModelError as error:
            return _model_error(error)
        completion = sent_reply(call, completion)
        return JSONResponse(completion_body(completion, model=served, reply_id=reply_id, created=created))

    async def not_found(request: Request, error: Exception) -> Response:
        status = getattr(error, "status_code", 404)
        detail = getattr(error, "detail", "not found")
        code = "not_found" if status == 404 else None
        return _error(status, f"{request.method} {request.url.path}: {detail}", code=code)

    async def failed(request: Request, error: Exception) -> Response:
        return _error(500, f"the server failed: {type(error).__name__}", kind="server_error")

    app = Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        ],
        exception_handlers={HTTPException: not_found, Exception: failed},
    )
    if api_key:
        app.add_middleware(_KeyCheck, key=api_key)
    return app


async def _body(request: Request) -> bytes:
    """The request's body, refused past `MAX_BODY`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise WireError(f"the body is larger than {MAX_BODY // (1024 * 1024)} MiB")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise WireError(f"the body is larger than {MAX_BODY // (1024 * 1024)} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


async def _stream(
    model: Model, call: ChatCall, chat: Any, served: str, reply_id: str, created: int
) -> AsyncIterator[str]:
    """The reply as server-sent events: written whole first (the redaction step reads a reply whole, so a key split
    across pieces is found), comment lines meanwhile, then its chunks and `[DONE]`; a failure is an `error` event."""
    writing = asyncio.ensure_future(run_in_threadpool(model.complete, chat))
    while True:
        done, _ = await asyncio.wait({writing}, timeout=KEEP_ALIVE_SECONDS)
        if done:
            break
        yield ": writing\n\n"
    try:
        completion: Completion = writing.result()
    except ModelError as error:
        _, body = _model_failure(error)
        yield f"data: {json.dumps(body)}\n\n"
        return
    for chunk in completion_chunks(
        sent_reply(call, completion), model=served, reply_id=reply_id, created=created, include_usage=call.include_usage
    ):
        yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"


def _model_failure(error: ModelError) -> tuple[int, dict[str, Any]]:
    """The status and body of a failed model call: 503 when it may pass (the server behind did not answer, after
    retries), else 400 (asking the same again cannot help)."""
    message = redact_text(" ".join(str(error).split()))
    if isinstance(error, RetryableError):
        return 503, error_body(message, "server_error", code="model_unavailable")
    code = "invalid_request" if isinstance(error, InvalidRequestError) else "model_error"
    return 400, error_body(message, "invalid_request_error", code=code)


def _model_error(error: ModelError) -> Response:
    status, body = _model_failure(error)
    return JSONResponse(body, status_code=status)


def _error(
    status: int, message: str, *, kind: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> Response:
    return JSONResponse(error_body(message, kind, param, code), status_code=status)


class _KeyCheck:
    """Refuse a request without the server's key (`Authorization: Bearer KEY`), compared in constant time."""

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self.expected = f"Bearer {key}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                message = "this server needs its API key: Authorization: Bearer KEY"
                response = _error(401, message, code="invalid_api_key")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
