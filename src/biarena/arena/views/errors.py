"""refused, user_error, http_error: every refusal and error an arena request meets, rendered as the one error page."""

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from biarena.arena.store import ArenaRefusal, RateLimited, SignInThrottled
from biarena.arena.views.context import NotSignedIn, context_of
from biarena.errors import BiarenaError


async def refused(request: Request, error: ArenaRefusal) -> Response:
    """A refusal: a page that needs a session sends the visitor to sign in; anything else names what went wrong."""
    if isinstance(error, NotSignedIn) and request.method == "GET":
        return RedirectResponse("/login", status_code=303)
    context = context_of(request)
    response = context.page(
        request, "error.html.j2", context.session_of(request), status=error.status, message=str(error)
    )
    if isinstance(error, SignInThrottled | RateLimited):
        response.headers["retry-after"] = str(error.retry_after)
    return response


async def user_error(request: Request, error: BiarenaError) -> Response:
    """A user's mistake the library refused (an unknown role, say): 400 with its one-line message."""
    context = context_of(request)
    return context.page(request, "error.html.j2", context.session_of(request), status=400, message=str(error))


async def http_error(request: Request, error: StarletteHTTPException) -> Response:
    """An HTTP error from routing (no such page, a method not allowed) on the same error page."""
    message = "no such page" if error.status_code == 404 else str(error.detail)
    context = context_of(request)
    return context.page(
        request, "error.html.j2", context.session_of(request), status=error.status_code, message=message
    )
