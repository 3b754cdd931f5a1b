"""The http system: the question POSTed as JSON to a URL, a JSON answer read back within a deadline and a size
limit."""

import contextlib
import http.client
import json
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from pydantic import field_validator

from biarena.agents.external import ReplyTooLarge, ServiceOptions, ServiceSystem, SystemFailed, SystemTimeout, said_text


class HttpOptions(ServiceOptions):
    """Options of the http system."""

    url: str
    """Endpoint the question is POSTed to as JSON (http:// or https://)."""

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("not an http:// or https:// URL")
        try:
            parts.port  # noqa: B018 (a bad port raises here)
        except ValueError:
            raise ValueError("bad port") from None
        return url


class HttpSystem(ServiceSystem):
    """POSTs the question as JSON to a URL and reads a JSON answer, within a total deadline and a size limit."""

    name = "http"
    target_option = "url"
    Options = HttpOptions
    options: HttpOptions

    def exchange(self, payload: dict[str, Any]) -> bytearray:
        """One POST; the connection is cut at the deadline however slowly the server sends."""
        parts = urlsplit(self.target)
        deadline = time.monotonic() + self.timeout
        connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = connection_class(parts.hostname or "", parts.port, timeout=self.timeout)
        cut = threading.Timer(self.timeout, _shut, (connection,))
        cut.daemon = True
        cut.start()
        try:
            with self._in_flight(lambda: _shut(connection)):
                body, response = self._post(connection, parts.path, parts.query, payload, deadline)
        except (OSError, http.client.HTTPException) as error:
            if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
                raise SystemTimeout(f"no complete reply within {self.timeout:g} s (system_timeout)") from None
            raise
        finally:
            cut.cancel()
            connection.close()
        if time.monotonic() >= deadline:
            raise SystemTimeout(f"no complete reply within {self.timeout:g} s (system_timeout)")
        if not 200 <= response.status < 300:
            preview = said_text(body)[:300]
            raise SystemFailed(f"HTTP {response.status} {response.reason}: {preview}")
        return body

    def _post(
        self, connection: http.client.HTTPConnection, path: str, query: str, payload: dict[str, Any], deadline: float
    ) -> tuple[bytearray, http.client.HTTPResponse]:
        """Send the request and read the reply within the deadline and the size limit."""
        path = (path or "/") + (f"?{query}" if query else "")
        data = json.dumps(payload).encode("utf-8")
        connection.request("POST", path, body=data, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        declared = response.getheader("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise ReplyTooLarge(
                f"the reply is {int(declared):,} bytes, over max_reply_bytes ({self.max_reply_bytes:,} bytes)"
            )

        def wait_at_most_the_time_left() -> None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SystemTimeout(f"no complete reply within {self.timeout:g} s (system_timeout)")
            if connection.sock is not None:
                connection.sock.settimeout(remaining)

        body = bytearray()
        self.read_reply(response.read1, body, "the reply", wait_at_most_the_time_left)
        return body, response


def _shut(connection: http.client.HTTPConnection) -> None:
    """Wake a read blocked on a server that stopped sending (or sends a byte at a time)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
