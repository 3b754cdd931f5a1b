"""home, login_form, login, logout: the way into the arena with an invite token, and out of it."""

import logging
from datetime import timedelta

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from biarena.arena.sign_in_limit import CLIENT
from biarena.arena.store import ArenaRefusal, SignInThrottled
from biarena.arena.views.context import (
    LOGIN_FORM_COOKIE,
    SESSION_COOKIE,
    VOTERS,
    BadFormToken,
    check_csrf,
    context_of,
    set_cookie,
)

SESSION_SECONDS = 14 * 24 * 3600

log = logging.getLogger("biarena.arena")


def home(request: Request) -> Response:
    """The comparisons for someone signed in, the sign-in page for anyone else."""
    return RedirectResponse("/compare" if context_of(request).session_of(request) else "/login", status_code=303)


def login_form(request: Request) -> Response:
    """The sign-in page, with a one-use form token bound to a short-lived pre-session cookie."""
    context = context_of(request)
    lifetime = timedelta(seconds=context.config.login_form_seconds)
    form_id, csrf = context.arena.store.open_login_form(lifetime)
    response = context.page(request, "login.html.j2", context.session_of(request), csrf=csrf)
    set_cookie(response, request, LOGIN_FORM_COOKIE, form_id, int(lifetime.total_seconds()), samesite="strict")
    return response


async def login(request: Request) -> Response:
    """Sign in with an invite token sent from this site's own sign-in form; failures are counted and held back."""
    context = context_of(request)
    store, limit = context.arena.store, context.config.sign_in_limit
    form = await request.form(max_files=0, max_fields=5)
    # A browser names a form posted from another site; only this site's own sign-in page may post here.
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise BadFormToken()
    form_id, csrf = request.cookies.get(LOGIN_FORM_COOKIE), form.get("csrf")
    if not form_id or not isinstance(csrf, str):
        raise BadFormToken()
    if not await run_in_threadpool(store.use_login_form, form_id, csrf):
        raise BadFormToken()
    token = form.get("token")
    client = context.client_of(request)
    try:
        opened = await run_in_threadpool(store.sign_in, token if isinstance(token, str) else "", client, limit)
    except SignInThrottled as held:
        which = "from this client" if held.kind == CLIENT else "with this token's first characters"
        log.warning(
            "sign-in refused for client %s: %d failed sign-ins %s within %g s; retry after %d s",
            client, held.failures, which, limit.window, held.retry_after,
        )
        raise
    if opened is None:
        raise ArenaRefusal("unknown invite token; check it or ask an admin for a new one", 401)
    session_id, session = opened
    target = "/compare" if session.user.role in VOTERS else "/leaderboard"
    response = RedirectResponse(target, status_code=303)
    set_cookie(response, request, SESSION_COOKIE, session_id, SESSION_SECONDS)
    response.delete_cookie(LOGIN_FORM_COOKIE, path="/")
    return response


async def logout(request: Request) -> Response:
    """Close the session the cookie names and forget the cookie."""
    context = context_of(request)
    session = context.require(request)
    form = await request.form(max_files=0, max_fields=5)
    check_csrf(session.csrf, form.get("csrf"))
    await run_in_threadpool(context.arena.store.sign_out, request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
