"""create_app: the arena web app (FastAPI + Jinja2), its views wired to their routes."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from biarena.arena.client_address import trusted_networks
from biarena.arena.config import ArenaConfig
from biarena.arena.security_headers import SecurityHeaders
from biarena.arena.state import Arena
from biarena.arena.store import ArenaRefusal
from biarena.arena.templating import number, template_environment
from biarena.arena.views import admin, errors, leaderboard, sign_in, submissions, votes
from biarena.arena.views.context import ArenaContext
from biarena.errors import BiarenaError

__all__ = ["create_app", "number"]

STATIC = Path(__file__).parent / "static"

ROUTES: list[tuple[str, str, Callable[..., Any]]] = [
    ("GET", "/", sign_in.home),
    ("GET", "/login", sign_in.login_form),
    ("POST", "/login", sign_in.login),
    ("POST", "/logout", sign_in.logout),
    ("GET", "/compare", votes.compare),
    ("POST", "/vote", votes.vote),
    ("GET", "/reveal/{token}", votes.reveal),
    ("GET", "/leaderboard", leaderboard.leaderboard),
    ("GET", "/submit", submissions.submit_form),
    ("POST", "/submit", submissions.submit),
    ("GET", "/admin", admin.admin),
    ("POST", "/admin/invite", admin.invite),
    ("GET", "/export/votes.{fmt}", admin.export),
]
"""(method, path, view) of every page and form the arena serves."""

ERROR_HANDLERS: list[tuple[type[Exception], Callable[..., Any]]] = [
    (ArenaRefusal, errors.refused),
    (BiarenaError, errors.user_error),
    (StarletteHTTPException, errors.http_error),
]
"""Each kind of error a request may meet, and the view that renders it."""


@asynccontextmanager
async def _closing_store(app: FastAPI) -> AsyncIterator[None]:
    yield
    app.state.arena.store.close()


def create_app(config: ArenaConfig) -> FastAPI:
    """The arena app for `config`: blind pairwise votes, submissions, leaderboard, exports."""
    arena = Arena(config)
    app = FastAPI(title="biarena arena", docs_url=None, redoc_url=None, openapi_url=None, lifespan=_closing_store)
    app.state.arena = arena
    app.state.context = ArenaContext(
        arena, Jinja2Templates(env=template_environment()), trusted_networks(config.trusted_proxies)
    )
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    app.add_middleware(SecurityHeaders)
    for error, handler in ERROR_HANDLERS:
        app.add_exception_handler(error, handler)
    for method, path, view in ROUTES:
        app.add_api_route(path, view, methods=[method])
    return app
