"""ToolServer: the tool server of one run, on loopback by default, in a thread of the run's process."""

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from biarena.agents.tool_session import OPERATIONS, ToolSession
from biarena.errors import UsageError
from biarena.llm.model_server import is_loopback
from biarena.toolserver.sessions import SessionBook, bearer

STARTUP_SECONDS = 30.0
"""How long the server may take to start listening."""


def _missing(error: ImportError) -> UsageError:
    return UsageError(
        f"the database tools need the 'tools' extra ({error.name} is missing): pip install 'biarena[tools]'"
    )


class ToolServer:
    """Serves the database tools to the system under test: MCP at `/mcp`, plain JSON at `/tools`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        try:
            import uvicorn
            from mcp.server.transport_security import TransportSecuritySettings
            from starlette.routing import Route

            from biarena.toolserver.json_routes import tool_routes
            from biarena.toolserver.mcp_tools import build_mcp
        except ImportError as error:
            raise _missing(error) from None
        self.host, self.port = host, port
        self.book = SessionBook()
        self.mcp = build_mcp(self._call)
        list_tools, call_tool = tool_routes(self.book, self.mcp.list_tools)
        loopback = is_loopback(host)
        security = None if loopback else TransportSecuritySettings(enable_dns_rebinding_protection=False)
        app = self.mcp.streamable_http_app(
            stateless_http=True, json_response=True, transport_security=security, host=host if loopback else "0.0.0.0"
        )
        app.router.routes.append(Route("/tools", list_tools, methods=["GET"]))
        app.router.routes.append(Route("/tools/{operation}", call_tool, methods=["POST"]))
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def _call(self, ctx: Any, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """An MCP call: the session of the request's bearer token answers it."""
        headers = ctx.headers or {}
        session = self.book.session(bearer(headers.get("authorization")))
        return session.call(operation, arguments, "mcp")

    def start(self) -> "ToolServer":
        """Listen (port 0: one the system picks) and return once connections are taken."""
        self._thread = threading.Thread(target=self._server.run, name="biarena-tools", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise UsageError(f"the database tool server could not listen on {self.host}:{self.port}")
            time.sleep(0.01)
        sockets = [s for server in self._server.servers for s in server.sockets]
        self.port = sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        """Stop listening; sessions still open are refused from now on."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    @property
    def base_url(self) -> str:
        """Where the server listens (`http://127.0.0.1:PORT`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else host
        return f"http://{host}:{self.port}"

    def open(self, session: ToolSession) -> tuple[str, dict[str, Any]]:
        """Register a question's session: its token, and what the system is told about its tools."""
        token = self.book.open(session)
        http_url = f"{self.base_url}/tools"
        left = None if session.deadline is None else round(max(session.deadline - time.monotonic(), 0.0), 3)
        return token, {
            "token": token,
            "mcp_url": f"{self.base_url}/mcp",
            "http_url": http_url,
            "headers": {"Authorization": f"Bearer {token}"},
            "stdio": {
                "command": sys.executable,
                "args": ["-m", "biarena", "tools", "stdio"],
                "env": {"BIARENA_TOOLS_URL": http_url, "BIARENA_TOOLS_TOKEN": token},
            },
            "operations": list(OPERATIONS),
            "limits": session.limits.model_dump(mode="json"),
            "expires_in": left,
        }

    def close(self, token: str) -> None:
        """End a question's session."""
        self.book.close(token)


@contextlib.contextmanager
def serving_tools(host: str = "127.0.0.1", port: int = 0) -> Iterator[ToolServer]:
    """A started tool server, stopped on the way out."""
    server = ToolServer(host, port).start()
    try:
        yield server
    finally:
        server.stop()

