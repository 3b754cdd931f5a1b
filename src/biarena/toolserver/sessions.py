"""SessionBook: session tokens, each bound to one question's tool session until the question ends."""

import secrets
import threading

from biarena.agents.tool_session import ToolError, ToolSession

TOKEN_BYTES = 32
"""Random bytes in a session token (256 bits: unguessable)."""


class SessionBook:
    """The open sessions by token; a token is refused once its question has ended or its deadline has passed."""

    def __init__(self) -> None:
        self._sessions: dict[str, ToolSession] = {}
        self._lock = threading.Lock()

    def open(self, session: ToolSession) -> str:
        """Register `session` and return its new token."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._lock:
            self._sessions[token] = session
        return token

    def close(self, token: str) -> None:
        """End the session of `token` (its question is answered): the token is refused from now on."""
        with self._lock:
            session = self._sessions.pop(token, None)
        if session is not None:
            session.close()

    def session(self, token: str | None) -> ToolSession:
        """The live session of `token`; ToolError (the message the caller reads) for none, unknown, or ended."""
        if not token:
            raise ToolError("no session token: send the question's token as 'Authorization: Bearer TOKEN'")
        with self._lock:
            session = self._sessions.get(token)
        if session is None:
            raise ToolError("unknown or ended session token: a token works only while its question is being answered")
        if session.closed:
            self.close(token)
            raise ToolError("this session has ended: the question's deadline has passed")
        return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header (None when there is none)."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
