"""submit_form, submit: a submitter's run file uploaded, checked, rescored and added to the comparisons."""

from functools import partial
from pathlib import Path

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from biarena.arena.catalog import ArenaSystem
from biarena.arena.store import ArenaRefusal, Session
from biarena.arena.submission import accept_submission, discard, private_copy
from biarena.arena.upload_stream import capped_upload, too_large
from biarena.arena.views.context import SUBMITTERS, ArenaContext, check_csrf, context_of

CHUNK = 1024 * 1024


def submit_form(request: Request) -> Response:
    """The upload form, naming the benchmarks a run may answer."""
    context = context_of(request)
    session = context.require(request, SUBMITTERS)
    return context.page(request, "submit.html.j2", session, benchmarks=sorted(context.arena.catalog.benchmark_refs))


async def submit(request: Request) -> Response:
    """Take an uploaded run within the day's uploads and the size limit, and add its system to the arena."""
    context = context_of(request)
    session = context.require(request, SUBMITTERS)
    config, arena = context.config, context.arena
    capped = capped_upload(request, config.max_upload_bytes)  # a declared length over the limit is refused first
    await run_in_threadpool(arena.store.take_submission, session.user.id, config.daily_submissions)
    form = await capped.form(max_files=1, max_fields=5)
    try:
        system = await _accepted(context, session, form)
    finally:
        await form.close()
    try:
        arena.store.add_system(system.name, system.path, system.spec.benchmark_name, session.user.id)
    except ArenaRefusal:
        for leftover in system.path.parent.glob(f"{system.path.name}*"):
            leftover.unlink(missing_ok=True)
        raise
    arena.catalog.add(system)
    return context.page(
        request, "submit.html.j2", session, benchmarks=sorted(arena.catalog.benchmark_refs), added=system
    )


async def _accepted(context: ArenaContext, session: Session, form: FormData) -> ArenaSystem:
    """The system of the form's run file, copied to a private folder, checked and scored there."""
    config = context.config
    check_csrf(session.csrf, form.get("csrf"))
    upload, name = form.get("run"), form.get("name")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise ArenaRefusal("choose a run file to upload")
    shown_name = Path(upload.filename).name[:200]
    folder = private_copy(config.submissions_dir)
    try:
        target = folder / "upload.run"
        if await _save(upload, target, config.max_upload_bytes) == 0:
            raise ArenaRefusal(f"{shown_name}: the file is empty")
        return await run_in_threadpool(
            partial(
                accept_submission,
                target,
                shown_name,
                name if isinstance(name, str) else "",
                context.arena.catalog,
                config.submissions_dir,
                judges=config.judges,
                judge_model=config.judge_model,
            )
        )
    finally:
        discard(folder)


async def _save(upload: UploadFile, target: Path, limit: int) -> int:
    """Copy the upload to `target` a chunk at a time and return its size; ArenaRefusal (413) past `limit` bytes."""
    size = 0
    with target.open("wb") as out:
        while chunk := await upload.read(CHUNK):
            size += len(chunk)
            if size > limit:
                raise ArenaRefusal(too_large(limit), 413)
            out.write(chunk)
    return size
