"""create_app: the arena web app (FastAPI + Jinja2), a thin layer over the store, catalog and leaderboard."""

import logging
import random
import secrets
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from biarena.arena.catalog import Catalog, system_from_run
from biarena.arena.client_address import client_address, trusted_networks
from biarena.arena.config import ArenaConfig
from biarena.arena.pairing import next_pair
from biarena.arena.sign_in_limit import CLIENT
from biarena.arena.store import (
    ROLES,
    ArenaRefusal,
    ArenaStore,
    RateLimited,
    Session,
    ShownPair,
    SignInThrottled,
    daily_cap_reached,
)
from biarena.arena.submission import accept_submission, discard, private_copy
from biarena.arena.upload_stream import capped_upload, too_large
from biarena.errors import BiarenaError
from biarena.report.answer_html import ANSWER_CSS, answer_html
from biarena.report.auto_scores import AUTO_SCORES
from biarena.report.run_data import RunData
from biarena.scoring.infos import registered_infos
from biarena.votes.export import export_votes
from biarena.votes.leaderboard import Leaderboard, build_leaderboard
from biarena.votes.style import vote_styles

HERE = Path(__file__).parent
SESSION_COOKIE = "biarena_session"
LOGIN_FORM_COOKIE = "biarena_login"
"""The sign-in form's pre-session: its id names the one-use CSRF token the server issued with the form."""
CHUNK = 1024 * 1024
VOTERS = ("annotator", "admin")
SUBMITTERS = ("submitter", "admin")
MAX_RATIONALE = 2000

log = logging.getLogger("biarena.arena")

SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
     b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


class SecurityHeaders:
    """Adds the arena's security headers to every response: nothing loads from elsewhere, nothing is framed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class NotSignedIn(ArenaRefusal):
    """The request needs a session it does not have."""

    def __init__(self) -> None:
        super().__init__("sign in first: open the sign-in page and enter your invite token", 401)


class BadFormToken(ArenaRefusal):
    """A form came without the security token this server issued for it, or with one used or out of date."""

    def __init__(self) -> None:
        super().__init__("the form's security token is missing or out of date; reload the page and try again", 403)


class Arena:
    """The state one app serves: its settings, store, catalog and a cached leaderboard."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.catalog = Catalog.from_runs(config.runs)
        self.store = ArenaStore(config.db)
        for name, path in self.store.submitted_systems():
            try:
                self.catalog.add(system_from_run(RunData.read(path), name, submitted=True))
            except BiarenaError as error:
                log.warning("submitted system %s is left out: %s", name, error)
        if len(self.catalog.systems) < 2:
            self.store.close()
            raise ArenaRefusal("an arena needs at least two systems to compare; give two or more --runs")
        self.store.fill_run_ids(self.run_ids())
        self.store.save_leaderboard_settings(config.leaderboard)
        self.rng = random.Random(config.seed) if config.seed is not None else random.SystemRandom()
        self._pick_lock = threading.Lock()
        self._board_lock = threading.Lock()
        self._board: tuple[tuple[int, int], Leaderboard] | None = None

    def run_ids(self) -> dict[str, str]:
        """Each system's name -> the id of the run behind it."""
        return {name: system.spec.run_id for name, system in self.catalog.systems.items()}

    def leaderboard(self) -> Leaderboard:
        """The leaderboard, refitted only when votes or systems changed."""
        with self._board_lock:
            key = (self.store.vote_count(), len(self.catalog.systems))
            if self._board is None or self._board[0] != key:
                systems = self.catalog.systems.values()
                # a vote names its runs by id, or (stored before runs had ids) by the name the arena showed
                texts = {
                    (key, qid): answer.text
                    for system in systems
                    for key in (system.spec.run_id, system.name)
                    for qid, answer in system.answers.items()
                }
                contenders, style = [system.contender for system in systems], vote_styles(texts)
                board = build_leaderboard(
                    self.store.votes(), contenders, self.config.leaderboard, metrics=AUTO_SCORES, style=style
                )
                self._board = (key, board)
            return self._board[1]

    def comparison_for(self, session: Session) -> ShownPair | None:
        """The user's open comparison, or a new one on the least-compared pair they have not judged."""
        user = session.user
        with self._pick_lock:
            current = self.store.open_comparison(user.id)
            if current is not None:
                systems = self.catalog.systems
                if current.left_system in systems and current.right_system in systems:
                    return current
                self.store.drop_comparison(current.token)
            pick = next_pair(
                self.catalog,
                self.store.voted_keys(user.id),
                self.store.pair_counts(),
                self.store.question_pair_counts(),
                self.rng,
            )
            if pick is None:
                return None
            return self.store.new_comparison(user.id, pick.benchmark, pick.question_id, pick.left, pick.right)


def create_app(config: ArenaConfig) -> FastAPI:
    """The arena app for `config`: blind pairwise votes, submissions, leaderboard, exports."""
    arena = Arena(config)
    templates = Jinja2Templates(env=template_environment())

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        arena.store.close()

    app = FastAPI(title="biarena arena", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.arena = arena
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.add_middleware(SecurityHeaders)

    def page(request: Request, name: str, session: Session | None, status: int = 200, **context: Any) -> Response:
        return templates.TemplateResponse(
            request, name, {"session": session, "config": config, **context}, status_code=status
        )

    def current(request: Request) -> Session | None:
        session_id = request.cookies.get(SESSION_COOKIE)
        return arena.store.session(session_id) if session_id else None

    def require(request: Request, roles: tuple[str, ...] = ROLES) -> Session:
        session = current(request)
        if session is None:
            raise NotSignedIn()
        if session.user.role not in roles:
            raise ArenaRefusal(f"your role ({session.user.role}) may not do this; ask an admin", 403)
        return session

    def check_csrf(expected: str | None, given: object) -> None:
        if not expected or not isinstance(given, str) or not secrets.compare_digest(expected, given):
            raise BadFormToken()

    def cookie(
        response: Response, request: Request, name: str, value: str, max_age: int | None, samesite: str = "lax"
    ) -> None:
        response.set_cookie(
            name, value, max_age=max_age, httponly=True, samesite=samesite,  # type: ignore[arg-type]
            secure=request.url.scheme == "https", path="/",
        )

    trusted = trusted_networks(config.trusted_proxies)
    limit = config.sign_in_limit

    def client_of(request: Request) -> str:
        peer = request.client.host if request.client else None
        return client_address(peer, request.headers.getlist("x-forwarded-for"), trusted)

    @app.exception_handler(ArenaRefusal)
    async def refused(request: Request, error: ArenaRefusal) -> Response:
        if isinstance(error, NotSignedIn) and request.method == "GET":
            return RedirectResponse("/login", status_code=303)
        response = page(request, "error.html.j2", current(request), status=error.status, message=str(error))
        if isinstance(error, SignInThrottled | RateLimited):
            response.headers["retry-after"] = str(error.retry_after)
        return response

    @app.exception_handler(BiarenaError)
    async def user_error(request: Request, error: BiarenaError) -> Response:
        return page(request, "error.html.j2", current(request), status=400, message=str(error))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        message = "no such page" if error.status_code == 404 else str(error.detail)
        return page(request, "error.html.j2", current(request), status=error.status_code, message=message)

    @app.get("/")
    def home(request: Request) -> Response:
        return RedirectResponse("/compare" if current(request) else "/login", status_code=303)

    @app.get("/login", response_class=HTMLResponse)
    def login_form(request: Request) -> Response:
        lifetime = timedelta(seconds=config.login_form_seconds)
        form_id, csrf = arena.store.open_login_form(lifetime)
        response = page(request, "login.html.j2", current(request), csrf=csrf)
        cookie(response, request, LOGIN_FORM_COOKIE, form_id, int(lifetime.total_seconds()), samesite="strict")
        return response

    @app.post("/login")
    async def login(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=5)
        # A browser names a form posted from another site; only this site's own sign-in page may post here.
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            raise BadFormToken()
        form_id, csrf = request.cookies.get(LOGIN_FORM_COOKIE), form.get("csrf")
        if not form_id or not isinstance(csrf, str):
            raise BadFormToken()
        if not await run_in_threadpool(arena.store.use_login_form, form_id, csrf):
            raise BadFormToken()
        token = form.get("token")
        client = client_of(request)
        try:
            opened = await run_in_threadpool(
                arena.store.sign_in, token if isinstance(token, str) else "", client, limit
            )
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
        cookie(response, request, SESSION_COOKIE, session_id, 14 * 24 * 3600)
        response.delete_cookie(LOGIN_FORM_COOKIE, path="/")
        return response

    @app.post("/logout")
    async def logout(request: Request) -> Response:
        session = require(request)
        form = await request.form(max_files=0, max_fields=5)
        check_csrf(session.csrf, form.get("csrf"))
        await run_in_threadpool(arena.store.sign_out, request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.get("/compare", response_class=HTMLResponse)
    def compare(request: Request) -> Response:
        session = require(request, VOTERS)
        today = arena.store.votes_today(session.user.id)
        if today >= config.daily_cap:
            raise daily_cap_reached(config.daily_cap)
        arena.store.check_address_votes(client_of(request), config.vote_flood)
        shown = arena.comparison_for(session)
        if shown is None:
            return page(request, "compare.html.j2", session, comparison=None, today=today)
        question = arena.catalog.questions[(shown.benchmark, shown.question_id)]
        hidden = arena.catalog.redaction_terms()
        systems = arena.catalog.systems
        left = answer_html(systems[shown.left_system].answers[shown.question_id], redact=hidden)
        right = answer_html(systems[shown.right_system].answers[shown.question_id], redact=hidden)
        return page(
            request, "compare.html.j2", session, comparison=shown, question=question, left=left, right=right,
            today=today,
        )

    @app.post("/vote")
    async def vote(request: Request) -> Response:
        session = require(request, VOTERS)
        form = await request.form(max_files=0, max_fields=10)
        check_csrf(session.csrf, form.get("csrf"))
        token, choice = form.get("comparison"), form.get("choice")
        rationale = form.get("rationale") or ""
        if not isinstance(token, str) or not isinstance(choice, str) or not isinstance(rationale, str):
            raise ArenaRefusal("a vote needs the comparison and a choice")
        if len(rationale) > MAX_RATIONALE:
            raise ArenaRefusal(f"the rationale is {len(rationale):,} characters; keep it under {MAX_RATIONALE:,}")
        await run_in_threadpool(
            partial(
                arena.store.record_vote,
                token,
                session.user.id,
                choice,
                rationale.strip(),
                config.daily_cap,
                arena.run_ids(),
                client=client_of(request),
                flood=config.vote_flood,
            )
        )
        return RedirectResponse(f"/reveal/{token}", status_code=303)

    @app.get("/reveal/{token}", response_class=HTMLResponse)
    def reveal(request: Request, token: str) -> Response:
        session = require(request, VOTERS)
        shown = arena.store.comparison(token, session.user.id)
        if shown is None or shown.vote_id is None:
            raise ArenaRefusal("names are shown only after your vote on this comparison", 404)
        choice = arena.store.vote_choice(shown.vote_id)
        return page(request, "reveal.html.j2", session, comparison=shown, choice=choice)

    @app.get("/leaderboard", response_class=HTMLResponse)
    def leaderboard(request: Request) -> Response:
        session = require(request)
        board = arena.leaderboard()
        infos = {info.name: info for info in registered_infos()}
        shown = [n for n in (*AUTO_SCORES, *board.judges) if n != board.auto_metric]
        columns = [(n, infos[n].label if n in infos else n) for n in shown]
        return page(request, "leaderboard.html.j2", session, board=board, columns=columns)

    @app.get("/submit", response_class=HTMLResponse)
    def submit_form(request: Request) -> Response:
        session = require(request, SUBMITTERS)
        return page(request, "submit.html.j2", session, benchmarks=sorted(arena.catalog.benchmark_refs))

    @app.post("/submit", response_class=HTMLResponse)
    async def submit(request: Request) -> Response:
        session = require(request, SUBMITTERS)
        limit = config.max_upload_bytes
        capped = capped_upload(request, limit)  # a declared length over the limit is refused before anything counts
        await run_in_threadpool(arena.store.take_submission, session.user.id, config.daily_submissions)
        form = await capped.form(max_files=1, max_fields=5)
        try:
            check_csrf(session.csrf, form.get("csrf"))
            upload, name = form.get("run"), form.get("name")
            if not isinstance(upload, UploadFile) or not upload.filename:
                raise ArenaRefusal("choose a run file to upload")
            shown_name = Path(upload.filename).name[:200]
            folder = private_copy(config.submissions_dir)
            try:
                target = folder / "upload.run"
                size = 0
                with target.open("wb") as out:
                    while chunk := await upload.read(CHUNK):
                        size += len(chunk)
                        if size > limit:
                            raise ArenaRefusal(too_large(limit), 413)
                        out.write(chunk)
                if size == 0:
                    raise ArenaRefusal(f"{shown_name}: the file is empty")
                system = await run_in_threadpool(
                    partial(
                        accept_submission,
                        target,
                        shown_name,
                        name if isinstance(name, str) else "",
                        arena.catalog,
                        config.submissions_dir,
                        judges=config.judges,
                        judge_model=config.judge_model,
                    )
                )
            finally:
                discard(folder)
        finally:
            await form.close()
        try:
            arena.store.add_system(system.name, system.path, system.spec.benchmark_name, session.user.id)
        except ArenaRefusal:
            for leftover in system.path.parent.glob(f"{system.path.name}*"):
                leftover.unlink(missing_ok=True)
            raise
        arena.catalog.add(system)
        return page(request, "submit.html.j2", session, benchmarks=sorted(arena.catalog.benchmark_refs), added=system)

    @app.get("/admin", response_class=HTMLResponse)
    def admin(request: Request) -> Response:
        session = require(request, ("admin",))
        return page(request, "admin.html.j2", session, users=arena.store.users(), roles=ROLES, new_token=None)

    @app.post("/admin/invite", response_class=HTMLResponse)
    async def invite(request: Request) -> Response:
        session = require(request, ("admin",))
        form = await request.form(max_files=0, max_fields=5)
        check_csrf(session.csrf, form.get("csrf"))
        name, role = form.get("name"), form.get("role") or "annotator"
        if not isinstance(name, str) or not isinstance(role, str):
            raise ArenaRefusal("an invite needs a name and a role")
        token = await run_in_threadpool(arena.store.invite, name, role)
        return page(
            request, "admin.html.j2", session, users=arena.store.users(), roles=ROLES, new_token=token,
            new_name=name.strip(),
        )

    @app.get("/export/votes.{fmt}")
    def export(request: Request, fmt: str) -> Response:
        require(request, ("admin",))
        if fmt not in ("jsonl", "csv"):
            raise ArenaRefusal("votes export as votes.jsonl or votes.csv", 404)
        media = "application/x-ndjson" if fmt == "jsonl" else "text/csv"
        return StreamingResponse(
            export_votes(arena.store.votes(), fmt),
            media_type=f"{media}; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="votes.{fmt}"'},
        )

    return app


def template_environment() -> jinja2.Environment:
    """The arena's templates, every value escaped: names of systems, runs and users are anyone's text."""
    # Explicit: Starlette's own loader escapes by file name (.html, .htm, .xml), and these are .html.j2.
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    env.globals["answer_css"] = Markup(ANSWER_CSS)  # our own stylesheet, not anyone's input
    env.filters["num"] = number
    return env


def number(value: float | None, digits: int = 2) -> str:
    """A score as the leaderboard prints it: fixed decimals, never "-0.00", a dash for none."""
    return "–" if value is None else f"{round(value, digits) + 0.0:.{digits}f}"
