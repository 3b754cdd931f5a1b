"""admin, invite, export: an admin's pages: the people and their invites, and the votes exported."""

from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from biarena.arena.store import ROLES, ArenaRefusal
from biarena.arena.views.context import ADMINS, check_csrf, context_of
from biarena.votes.export import export_votes


def admin(request: Request) -> Response:
    """The people of the arena and the form that invites one more."""
    context = context_of(request)
    session = context.require(request, ADMINS)
    return context.page(
        request, "admin.html.j2", session, users=context.arena.store.users(), roles=ROLES, new_token=None
    )


async def invite(request: Request) -> Response:
    """Invite a person with a role; their token is shown this once."""
    context = context_of(request)
    session = context.require(request, ADMINS)
    form = await request.form(max_files=0, max_fields=5)
    check_csrf(session.csrf, form.get("csrf"))
    name, role = form.get("name"), form.get("role") or "annotator"
    if not isinstance(name, str) or not isinstance(role, str):
        raise ArenaRefusal("an invite needs a name and a role")
    token = await run_in_threadpool(context.arena.store.invite, name, role)
    return context.page(
        request, "admin.html.j2", session, users=context.arena.store.users(), roles=ROLES, new_token=token,
        new_name=name.strip(),
    )


def export(request: Request, fmt: str) -> Response:
    """Every stored vote as a download, JSON lines or CSV."""
    context = context_of(request)
    context.require(request, ADMINS)
    if fmt not in ("jsonl", "csv"):
        raise ArenaRefusal("votes export as votes.jsonl or votes.csv", 404)
    media = "application/x-ndjson" if fmt == "jsonl" else "text/csv"
    return StreamingResponse(
        export_votes(context.arena.store.votes(), fmt),
        media_type=f"{media}; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="votes.{fmt}"'},
    )
