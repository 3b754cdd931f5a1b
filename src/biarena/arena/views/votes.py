"""compare, vote, reveal: two systems' answers shown blind, the vote on them, and their names shown after."""

from functools import partial

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from biarena.arena.store import ArenaRefusal, daily_cap_reached
from biarena.arena.views.context import VOTERS, check_csrf, context_of
from biarena.report.answer_html import answer_html

MAX_RATIONALE = 2000


def compare(request: Request) -> Response:
    """The voter's open comparison (or a new one): one question, answers A and B with nothing naming their systems."""
    context = context_of(request)
    arena, config = context.arena, context.config
    session = context.require(request, VOTERS)
    today = arena.store.votes_today(session.user.id)
    if today >= config.daily_cap:
        raise daily_cap_reached(config.daily_cap)
    arena.store.check_address_votes(context.client_of(request), config.vote_flood)
    shown = arena.comparison_for(session)
    if shown is None:
        return context.page(request, "compare.html.j2", session, comparison=None, today=today)
    question = arena.catalog.questions[(shown.benchmark, shown.question_id)]
    hidden = arena.catalog.redaction_terms()
    systems = arena.catalog.systems
    left = answer_html(systems[shown.left_system].answers[shown.question_id], redact=hidden)
    right = answer_html(systems[shown.right_system].answers[shown.question_id], redact=hidden)
    return context.page(
        request, "compare.html.j2", session, comparison=shown, question=question, left=left, right=right,
        today=today,
    )


async def vote(request: Request) -> Response:
    """Store the vote on a comparison (within the voter's and the address's limits), then reveal the names."""
    context = context_of(request)
    arena, config = context.arena, context.config
    session = context.require(request, VOTERS)
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
            client=context.client_of(request),
            flood=config.vote_flood,
        )
    )
    return RedirectResponse(f"/reveal/{token}", status_code=303)


def reveal(request: Request, token: str) -> Response:
    """The names of the two systems of a comparison the voter has voted on, and what they chose."""
    context = context_of(request)
    session = context.require(request, VOTERS)
    shown = context.arena.store.comparison(token, session.user.id)
    if shown is None or shown.vote_id is None:
        raise ArenaRefusal("names are shown only after your vote on this comparison", 404)
    choice = context.arena.store.vote_choice(shown.vote_id)
    return context.page(request, "reveal.html.j2", session, comparison=shown, choice=choice)
