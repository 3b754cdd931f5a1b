"""capture_arena_pages: every arena route driven through one fixed session, each response reduced to its bytes.

What is random by design is pinned, not masked: the store's clock is frozen and `secrets.token_urlsafe` draws from
a counter, so tokens, cookies and timestamps come out the same on every run. Left to normalize are the run ids
(they hash the runs' creation times), the temporary folder, a cookie's `expires` date (from the wall clock), and a
static file's `etag` and `last-modified` (from the checkout's file times).

`python -m tests.arena_pages` rewrites the fixture `tests/fixtures/arena_pages.json` from the current code.
"""

import asyncio
import base64
import hashlib
import json
import re
import secrets
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from biarena.arena import store as store_module
from biarena.arena.config import ArenaConfig
from biarena.report.run_data import RunData
from tests.arena_helpers import arena_client, comparison_of, csrf_of, invite, login_csrf_of, make_arena_runs
from tests.conftest import make_sales_db

if TYPE_CHECKING:
    from fastapi import FastAPI

FIXTURE = Path(__file__).parent / "fixtures" / "arena_pages.json"
FROZEN = datetime(2024, 5, 6, 10, 30, tzinfo=UTC)
QUESTIONS = 4
PROXY = "127.0.0.1"
"""The in-process client's own address, trusted as a proxy so each person's X-Forwarded-For names their address."""


@dataclass
class Capture:
    """Each step's response: status, headers and body, normalized."""

    root: Path
    run_ids: dict[str, str]
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)

    def normalize(self, text: str) -> str:
        """`text` with the run ids and the temporary folder named by what they stand for."""
        for run_id, name in self.run_ids.items():
            text = text.replace(run_id, f"<run {name}>")
        return text.replace(str(self.root), "<root>")

    def add(self, step: str, response: httpx.Response) -> httpx.Response:
        """Record one step's response under a unique name."""
        assert step not in self.steps, step
        headers = [
            [name, re.sub(r"expires=[^;]+", "expires=<date>", value) if name == "set-cookie" else value]
            for name, value in response.headers.multi_items()
        ]
        # a static file's validators come from the file's modification time: a checkout's, not the code's
        headers = [[name, f"<{name}>" if name in ("etag", "last-modified") else value] for name, value in headers]
        self.steps[step] = {
            "request": f"{response.request.method} {response.request.url.raw_path.decode()}",
            "status": response.status_code,
            "headers": [[name, self.normalize(value)] for name, value in headers],
            "body": self.normalize(response.content.decode("utf-8")),
        }
        return response


def digests(capture: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each step as the fixture keeps it: status, location and retry-after in clear, headers and body as digests."""
    kept = {}
    for step, seen in capture.items():
        headers = dict(seen["headers"])
        kept[step] = {
            "request": seen["request"],
            "status": seen["status"],
            **{name: headers[name] for name in ("location", "retry-after") if name in headers},
            "headers_sha256": _sha256(json.dumps(seen["headers"])),
            "body_bytes": len(seen["body"].encode("utf-8")),
            "body_sha256": _sha256(seen["body"]),
        }
    return kept


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def pinned_randomness() -> Iterator[None]:
    """Freeze the arena store's clock and make `secrets.token_urlsafe` a counter, for as long as the block runs."""
    drawn = [0]

    def token_urlsafe(nbytes: int | None = None) -> str:
        drawn[0] += 1
        seed = hashlib.sha256(f"token {drawn[0]}".encode()).digest()
        return base64.urlsafe_b64encode(seed[: nbytes or 32]).rstrip(b"=").decode("ascii")

    real_now, real_token = store_module._now, secrets.token_urlsafe
    store_module._now = lambda: FROZEN  # type: ignore[assignment]
    secrets.token_urlsafe = token_urlsafe  # type: ignore[assignment]
    try:
        yield
    finally:
        store_module._now, secrets.token_urlsafe = real_now, real_token  # type: ignore[assignment]


def capture_arena_pages(root: Path) -> dict[str, dict[str, Any]]:
    """Serve three runs of a small benchmark under `root` and record every route, in one fixed order."""
    root.mkdir(parents=True, exist_ok=True)
    runs = make_arena_runs(root, make_sales_db(root / "sales.sqlite"), QUESTIONS)
    run_ids = {RunData.read(path).spec.run_id: path.stem for path in runs.runs}
    config = ArenaConfig(
        db=root / "arena.sqlite", runs=runs.runs, seed=3, bootstrap=20, daily_cap=3, address_votes_per_hour=4,
        daily_submissions=4, sign_in_failures=2, max_upload_bytes=1_000_000, trusted_proxies=(PROXY,),
    )
    capture = Capture(root, run_ids)
    with pinned_randomness():
        tokens = {name: invite(config.db, name, role) for name, role in
                  (("ann", "annotator"), ("bob", "annotator"), ("sam", "submitter"), ("ada", "admin"))}
        asyncio.run(_drive(config, tokens, runs.runs[1].read_bytes(), capture))
    return capture.steps


async def _drive(config: ArenaConfig, tokens: dict[str, str], run_file: bytes, capture: Capture) -> None:
    from biarena.arena.app import create_app

    app = create_app(config)
    people = People(app, capture)
    async with app.router.lifespan_context(app):  # closes the arena's store at the end, as a server does
        await _strangers(people, tokens)
        await _annotators(people, tokens)
        await _submitter(people, tokens["sam"], run_file, config.max_upload_bytes)
        await _admin(people, tokens["ada"])


@dataclass
class People:
    """Clients of one app, each from its own address, recording what they see."""

    app: "FastAPI"
    capture: Capture

    def at(self, address: str) -> httpx.AsyncClient:
        """A client whose X-Forwarded-For names `address` (the arena trusts the in-process client as a proxy)."""
        client = arena_client(self.app)
        client.headers["x-forwarded-for"] = address
        return client

    async def sign_in(self, http: httpx.AsyncClient, step: str, token: str, **headers: str) -> httpx.Response:
        """Open the sign-in page and send its form, recording both."""
        form = self.capture.add(f"{step}: sign-in page", await http.get("/login"))
        sent = await http.post("/login", data={"token": token, "csrf": login_csrf_of(form.text)}, headers=headers)
        return self.capture.add(f"{step}: sign in", sent)

    async def vote(self, http: httpx.AsyncClient, step: str, choice: str = "left") -> str:
        """Open a comparison and vote on it, recording both; returns the comparison's token."""
        page = self.capture.add(f"{step}: compare", await http.get("/compare"))
        token = comparison_of(page.text)
        data = {"comparison": token, "choice": choice, "csrf": csrf_of(page.text)}
        self.capture.add(f"{step}: vote", await http.post("/vote", data=data))
        return token


async def _strangers(people: People, tokens: dict[str, str]) -> None:
    add = people.capture.add
    async with people.at("198.51.100.1") as http:
        for path in ("/", "/compare", "/leaderboard", "/no-such-page", "/reveal/nothing", "/static/arena.css"):
            add(f"anonymous GET {path}", await http.get(path))
        for path in ("/vote", "/submit", "/logout"):
            add(f"anonymous POST {path}", await http.post(path, data={"csrf": "x"}))
        await people.sign_in(http, "unknown token", "not-a-token")
        add("sign in without the form", await http.post("/login", data={"token": tokens["ann"]}))
        await people.sign_in(http, "from another site", tokens["ann"], **{"sec-fetch-site": "cross-site"})
    async with people.at("203.0.113.9") as http:
        for attempt in range(3):
            await people.sign_in(http, f"guess {attempt}", f"guess-{attempt}-{'x' * 20}")


async def _annotators(people: People, tokens: dict[str, str]) -> None:
    add = people.capture.add
    async with people.at("198.51.100.2") as http:
        await people.sign_in(http, "annotator", tokens["ann"])
        add("annotator GET /", await http.get("/"))
        page = add("annotator compare", await http.get("/compare"))
        shown, csrf = comparison_of(page.text), csrf_of(page.text)
        add("reveal before the vote", await http.get(f"/reveal/{shown}"))
        for step, form in (
            ("vote with a wrong form token", {"choice": "left", "csrf": "wrong"}),
            ("vote without a choice", {"csrf": csrf}),
            ("vote with a long rationale", {"choice": "left", "csrf": csrf, "rationale": "x" * 2001}),
            ("vote with an unknown choice", {"choice": "maybe", "csrf": csrf}),
            ("vote", {"choice": "right", "csrf": csrf, "rationale": "  <b>clearer</b> table  "}),
            ("vote again", {"choice": "left", "csrf": csrf}),
        ):
            add(step, await http.post("/vote", data={"comparison": shown, **form}))
        add("reveal", await http.get(f"/reveal/{shown}"))
        add("reveal of an unknown comparison", await http.get("/reveal/not-a-comparison"))
        for number, choice in enumerate(("tie", "both_bad"), start=2):
            shown = await people.vote(http, f"annotator vote {number}", choice)
            add(f"annotator reveal {number}", await http.get(f"/reveal/{shown}"))
        add("daily cap", await http.get("/compare"))
        add("annotator leaderboard", await http.get("/leaderboard"))
        for path in ("/admin", "/export/votes.csv", "/submit"):
            add(f"annotator GET {path}", await http.get(path))
        add("sign out with a wrong form token", await http.post("/logout", data={"csrf": "wrong"}))
        add("sign out", await http.post("/logout", data={"csrf": csrf}))
        add("after signing out", await http.get("/compare"))
    async with people.at("198.51.100.2") as http:  # the same address: its fourth vote is its last this hour
        await people.sign_in(http, "second annotator", tokens["bob"])
        await people.vote(http, "second annotator")
        add("address flood", await http.get("/compare"))


async def _submitter(people: People, token: str, run_file: bytes, limit: int) -> None:
    add = people.capture.add
    async with people.at("198.51.100.3") as http:
        await people.sign_in(http, "submitter", token)
        for path in ("/compare", "/submit", "/leaderboard"):
            add(f"submitter GET {path}", await http.get(path))
        csrf = csrf_of((await http.get("/submit")).text)
        for step, name, upload in (
            ("upload without a file", "Newcomer", None),
            ("upload an empty file", "Newcomer", ("empty.run", b"")),
            ("upload a taken name", "gold", ("coder.run", run_file)),
            ("upload a run", "Newcomer", ("coder.run", run_file)),
            ("upload over the day's limit", "Later", ("coder.run", run_file)),
        ):
            files = {"run": upload} if upload else {"other": ("x.txt", b"x")}
            add(step, await http.post("/submit", data={"name": name, "csrf": csrf}, files=files))
        oversized = {"run": ("huge.run", b"0" * (limit + 128 * 1024))}
        add("upload too large", await http.post("/submit", data={"name": "Huge", "csrf": csrf}, files=oversized))


async def _admin(people: People, token: str) -> None:
    add = people.capture.add
    async with people.at("198.51.100.4") as http:
        await people.sign_in(http, "admin", token)
        csrf = csrf_of(add("admin page", await http.get("/admin")).text)
        for step, form in (
            ("invite", {"name": "  Cleo  ", "role": "annotator", "csrf": csrf}),
            ("invite with an unknown role", {"name": "Dan", "role": "owner", "csrf": csrf}),
            ("invite with a wrong form token", {"name": "Eve", "csrf": "wrong"}),
        ):
            add(step, await http.post("/admin/invite", data=form))
        for path in ("/leaderboard", "/export/votes.jsonl", "/export/votes.csv", "/export/votes.xml", "/compare"):
            add(f"admin GET {path}", await http.get(path))


def main() -> None:
    """Rewrite the fixture from the current code."""
    with tempfile.TemporaryDirectory() as folder:
        steps = capture_arena_pages(Path(folder).resolve())
    FIXTURE.write_text(json.dumps(digests(steps), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if "--full" in sys.argv:
        print(json.dumps(steps, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
