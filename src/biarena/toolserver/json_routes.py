"""The database tools as plain JSON over HTTP: `GET /tools` lists them, `POST /tools/OPERATION` calls one."""

import json
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from biarena.agents.tool_session import OPERATIONS, ToolError
from biarena.toolserver.sessions import SessionBook, bearer

MAX_REQUEST_BYTES = 1024 * 1024
"""Largest request body read (a statement, an answer)."""
VIA_HEADER = "x-biarena-via"
"""Header the stdio bridge sets, so a call it forwards is recorded as made over MCP."""


def tool_routes(book: SessionBook, listing: Any) -> tuple[Any, Any]:
    """The two handlers: the tool list (`listing()`: awaitable of the MCP tool descriptions) and a tool call."""

    async def list_tools(request: Request) -> Response:
        tools = await listing()
        return JSONResponse(
            {"tools": [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]}
        )

    async def call_tool(request: Request) -> Response:
        operation = request.path_params["operation"]
        try:
            session = book.session(bearer(request.headers.get("authorization")))
        except ToolError as error:
            return _error(401, str(error))
        if operation not in OPERATIONS:
            return _error(404, f"no tool '{operation}' (the tools: {', '.join(OPERATIONS)})")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_REQUEST_BYTES:
                return _error(413, f"the request is over {MAX_REQUEST_BYTES:,} bytes")
        try:
            arguments = json.loads(bytes(body) or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return _error(400, "the request body is not JSON")
        if not isinstance(arguments, dict):
            return _error(400, "the request body must be a JSON object of the tool's arguments")
        transport = "mcp" if request.headers.get(VIA_HEADER) == "mcp" else "http"
        try:
            reply = await anyio.to_thread.run_sync(session.call, operation, arguments, transport)
        except ToolError as error:
            return _error(422, str(error))
        return JSONResponse({"result": reply})

    return list_tools, call_tool


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
