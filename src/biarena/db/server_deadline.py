"""ServerDeadline: a server statement's time limit held from the client side, fetching included.

The server's own `statement_timeout` bounds each statement it runs, and a cursor's rows come in many: its
declaration, then one FETCH per chunk, each with the full limit. So a thread watches the whole statement: at the
deadline it asks the server to cancel what runs, and should the server not answer (a stalled server or network),
it shuts the connection's socket down a second later, which fails the blocked read at once.
"""

import contextlib
import os
import socket
import threading
from typing import Any

CANCEL_AFTER = 0.25
"""Seconds past the time limit before the client cancels: the server's own timeout, when it covers the statement,
fires first and says so."""

CUT_AFTER = 1.25
"""Seconds past the time limit before the client shuts the connection down: a statement then fails within the time
limit plus 2 s whatever the server does."""


class ServerDeadline:
    """Cancels what runs on DB-API connection `raw` past `timeout` seconds, then cuts the connection; `stop()` first
    thing once the statement has ended, before the connection goes back to the pool."""

    def __init__(self, raw: Any, timeout: float) -> None:
        self.fired = threading.Event()
        """Set once the client has cancelled the statement or cut the connection."""
        self._raw = raw
        self._timeout = timeout
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="biarena-server-deadline")
        self._thread.start()

    def _watch(self) -> None:
        if self._ended.wait(self._timeout + CANCEL_AFTER):
            return
        with self._lock:
            if self._ended.is_set():
                return
            self.fired.set()
            with contextlib.suppress(Exception):  # the driver's own failure to cancel: the cut below follows
                self._raw.cancel()
        if self._ended.wait(CUT_AFTER - CANCEL_AFTER):
            return
        with self._lock:
            if self._ended.is_set():
                return
            with contextlib.suppress(OSError, ValueError, AttributeError):
                # A second descriptor for the same socket: shutting it down ends the connection for the driver too,
                # without closing a descriptor the driver still owns.
                cut = socket.socket(fileno=os.dup(self._raw.fileno()))
                try:
                    cut.shutdown(socket.SHUT_RDWR)
                finally:
                    cut.close()

    def stop(self) -> None:
        """End the watch; once this returns, the watch neither cancels nor cuts anything."""
        with self._lock:
            self._ended.set()
