"""ArenaContext, context_of: what every arena view reads (the arena, its templates, trusted proxies) and its checks."""

import secrets
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from biarena.arena.client_address import Network, client_address
from biarena.arena.config import ArenaConfig
from biarena.arena.state import Arena
from biarena.arena.store import ROLES, ArenaRefusal, Session

SESSION_COOKIE = "biarena_session"
LOGIN_FORM_COOKIE = "biarena_login"
"""The sign-in form's pre-session: its id names the one-use CSRF token the server issued with the form."""
VOTERS = ("annotator", "admin")
SUBMITTERS = ("submitter", "admin")
ADMINS = ("admin",)


class NotSignedIn(ArenaRefusal):
    """The request needs a session it does not have."""

    def __init__(self) -> None:
        super().__init__("sign in first: open the sign-in page and enter your invite token", 401)


class BadFormToken(ArenaRefusal):
    """A form came without the security token this server issued for it, or with one used or out of date."""

    def __init__(self) -> None:
        super().__init__("the form's security token is missing or out of date; reload the page and try again", 403)


@dataclass(frozen=True)
class ArenaContext:
    """The state one app serves, its templates and the proxies it trusts: all a view needs besides the request."""

    arena: Arena
    templates: Jinja2Templates
    trusted: tuple[Network, ...]

    @property
    def config(self) -> ArenaConfig:
        """The arena's settings."""
        return self.arena.config

    def page(self, request: Request, name: str, session: Session | None, status: int = 200, **context: Any) -> Response:
        """Template `name` rendered for `session`, with the arena's settings and `context`."""
        return self.templates.TemplateResponse(
            request, name, {"session": session, "config": self.config, **context}, status_code=status
        )

    def session_of(self, request: Request) -> Session | None:
        """The session the request's cookie names, if it is open."""
        session_id = request.cookies.get(SESSION_COOKIE)
        return self.arena.store.session(session_id) if session_id else None

    def require(self, request: Request, roles: tuple[str, ...] = ROLES) -> Session:
        """The request's session; NotSignedIn without one, ArenaRefusal (403) when its role is not in `roles`."""
        session = self.session_of(request)
        if session is None:
            raise NotSignedIn()
        if session.user.role not in roles:
            raise ArenaRefusal(f"your role ({session.user.role}) may not do this; ask an admin", 403)
        return session

    def client_of(self, request: Request) -> str:
        """The address limits count the request by: the peer's, or the client a trusted proxy names."""
        peer = request.client.host if request.client else None
        return client_address(peer, request.headers.getlist("x-forwarded-for"), self.trusted)


def context_of(request: Request) -> ArenaContext:
    """The context of the app serving `request`."""
    return request.app.state.context


def check_csrf(expected: str | None, given: object) -> None:
    """BadFormToken unless the form's token is the one the session holds."""
    if not expected or not isinstance(given, str) or not secrets.compare_digest(expected, given):
        raise BadFormToken()


def set_cookie(
    response: Response, request: Request, name: str, value: str, max_age: int | None, samesite: str = "lax"
) -> None:
    """Set an HTTP-only cookie on the whole site, secure when the request came over HTTPS."""
    response.set_cookie(
        name, value, max_age=max_age, httponly=True, samesite=samesite,  # type: ignore[arg-type]
        secure=request.url.scheme == "https", path="/",
    )
