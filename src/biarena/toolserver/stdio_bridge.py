"""serve_stdio: the database tools over MCP on stdin/stdout, for a command system whose MCP client starts its server.

The bridge holds no database: it forwards each call, with the question's session token, to the run's tool server
(its plain JSON endpoint), so every call is sandboxed, capped and recorded there as it is for any other."""

import json
import urllib.error
import urllib.request
from typing import Any

from biarena.agents.tool_session import ToolError
from biarena.errors import UsageError
from biarena.toolserver.json_routes import VIA_HEADER

FORWARD_TIMEOUT = 600.0
"""Seconds one forwarded call may take (the session's own caps and deadline end it sooner)."""


def forward(url: str, token: str, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool call sent to the run's tool server; its reply, or ToolError with what the server said."""
    request = urllib.request.Request(
        f"{url.rstrip('/')}/{operation}",
        data=json.dumps(arguments).encode("utf-8"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json", VIA_HEADER: "mcp"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=FORWARD_TIMEOUT) as response:
            return json.loads(response.read())["result"]
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read()).get("error") or f"HTTP {error.code}"
        except (ValueError, AttributeError):
            message = f"HTTP {error.code} {error.reason}"
        raise ToolError(str(message)) from None
    except (urllib.error.URLError, OSError) as error:
        raise ToolError(f"the run's tool server cannot be reached ({error})") from None


def serve_stdio(url: str | None, token: str | None) -> None:
    """Serve the tools over MCP on stdin/stdout until the client closes them, forwarding to `url` with `token`."""
    if not url or not token:
        raise UsageError(
            "tools stdio needs the run's tool endpoint and the question's token: set BIARENA_TOOLS_URL and "
            "BIARENA_TOOLS_TOKEN (the payload's tools.stdio.env holds both)"
        )
    try:
        from biarena.toolserver.mcp_tools import build_mcp
    except ImportError as error:
        raise UsageError(f"the database tools need the 'tools' extra ({error.name} is missing)") from None
    build_mcp(lambda _ctx, operation, arguments: forward(url, token, operation, arguments)).run("stdio")
