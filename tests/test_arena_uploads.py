"""Hostile uploads and floods against the arena, in-process: damaged, cut-short, oversized and foreign files are
refused in one message and leave nothing behind, the server keeps serving, and uploads and votes are rate-limited."""

import asyncio
import shutil
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from biarena.arena.app import create_app
from biarena.arena.config import ArenaConfig
from biarena.arena.upload_stream import FORM_ALLOWANCE
from tests.arena_helpers import (
    ArenaFixture,
    arena_client,
    comparison_of,
    csrf_of,
    error_message,
    invite,
    make_arena_runs,
    sign_in,
)
from tests.conftest import make_sales_db

LIMIT = 200_000
"""The upload limit these tests set (`max_upload_bytes`)."""
CHUNK = 16 * 1024


@pytest.fixture(scope="module")
def arena_runs(tmp_path_factory: pytest.TempPathFactory) -> ArenaFixture:
    root = tmp_path_factory.mktemp("arena")
    return make_arena_runs(root, make_sales_db(root / "sales.sqlite"), 4)


def config(arena_runs: ArenaFixture, tmp_path: Path, **settings: object) -> ArenaConfig:
    settings.setdefault("bootstrap", 10)
    settings.setdefault("max_upload_bytes", LIMIT)
    return ArenaConfig(db=tmp_path / "arena.sqlite", runs=arena_runs.runs, **settings)  # type: ignore[arg-type]


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(body())


def edited(source: Path, target: Path, *statements: str) -> bytes:
    """A copy of a run file changed by `statements`, as one file (its write-ahead log folded in)."""
    shutil.copy(source, target)
    conn = sqlite3.connect(target)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    finally:
        conn.close()
    return target.read_bytes()


def hostile_files(good: Path, tmp_path: Path) -> dict[str, tuple[bytes, str]]:
    """name -> (bytes, what the refusal says) for every hostile upload."""
    tmp_path.mkdir(exist_ok=True)
    data = good.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    plain = tmp_path / "plain.sqlite"
    with closing(sqlite3.connect(plain)) as conn:
        conn.execute("CREATE TABLE t (x)")
    rotten = bytearray(data)
    rotten[page : 3 * page] = b"\xa5" * (2 * page)  # the first b-tree pages after the schema overwritten
    bad_page_size = bytearray(data)
    bad_page_size[16:18] = (1000).to_bytes(2, "big")
    return {
        "cut-at-a-page.run": (data[: len(data) // page // 2 * page], "cut short"),
        "cut-mid-page.run": (data[: len(data) // 2 + 17], "cut short"),
        "cut-in-header.run": (data[:60], "cut short"),
        "rotten.run": (bytes(rotten), "damaged"),
        "bad-page-size.run": (bytes(bad_page_size), "no valid page size"),
        "picture.png": (b"\x89PNG\r\n\x1a\n" + bytes(5000), "not even an SQLite file"),
        "plain.sqlite": (plain.read_bytes(), "an SQLite database of something else"),
        "shadowed.run": (
            edited(
                good, tmp_path / "shadowed.run",
                "ALTER TABLE answers RENAME TO kept_answers",
                # each answer three times; a view that recursed without end would hold a server thread for ever
                "CREATE VIEW answers AS WITH RECURSIVE thrice(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM thrice "
                "WHERE n < 3) SELECT kept_answers.* FROM kept_answers, thrice",
            ),
            "it holds a view ('answers')",
        ),
        "triggered.run": (
            edited(
                good, tmp_path / "triggered.run",
                "CREATE TRIGGER wipe AFTER INSERT ON meta BEGIN DELETE FROM answers; END",
            ),
            "it holds a trigger ('wipe')",
        ),
        "generated.run": (
            edited(good, tmp_path / "generated.run", "ALTER TABLE answers ADD COLUMN huge AS (zeroblob(1000000000))"),
            "a generated column in table 'answers'",
        ),
        "expression-index.run": (
            edited(good, tmp_path / "expression-index.run", "CREATE INDEX heavy ON answers (length(body) * 2)"),
            "an index on an expression",
        ),
        "virtual.run": (
            edited(good, tmp_path / "virtual.run", "CREATE VIRTUAL TABLE notes USING fts5(x)"),
            "a virtual table ('notes')",
        ),
    }


def submit(http: httpx.AsyncClient, csrf: str, name: str, filename: str, content: bytes) -> Awaitable[httpx.Response]:
    return http.post("/submit", data={"name": name, "csrf": csrf}, files={"run": (filename, content)})


def left_behind(cfg: ArenaConfig) -> list[Path]:
    """Files an upload left in the arena's submissions folder (kept runs and private upload folders)."""
    folder = cfg.submissions_dir
    return sorted(folder.iterdir()) if folder.exists() else []


def test_hostile_uploads_are_refused_and_nothing_is_kept(
    arena_runs: ArenaFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    cfg = config(arena_runs, tmp_path, daily_submissions=100)
    sam = invite(cfg.db, "sam", "submitter")
    cases = hostile_files(arena_runs.runs[0], tmp_path / "made")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            for filename, (content, fragment) in cases.items():
                response = await submit(http, csrf, "Newcomer", filename, content)
                assert response.status_code == 400, (filename, response.text[-800:])
                message = error_message(response)
                assert message.startswith(f"{filename}: ") and fragment in message, (filename, message)
                assert "\n" not in message and str(tmp_path) not in response.text
                assert (await http.get("/submit")).status_code == 200  # still serving
            accepted = await submit(http, csrf, "Newcomer", "coder.run", arena_runs.runs[1].read_bytes())
            assert accepted.status_code == 200, accepted.text[-800:]

    run(body)
    kept = left_behind(cfg)
    assert len(kept) == 1 and kept[0].suffix == ".run"  # the one accepted upload; nothing of the refused ones
    assert list(spool.iterdir()) == []


def multipart(csrf: str, filename: str, size: int, sent: list[int]) -> tuple[dict[str, str], AsyncIterator[bytes]]:
    """Headers and a streamed multipart body (no Content-Length) whose file part is `size` bytes; `sent` counts
    the bytes the server pulled."""
    boundary = "hostile-boundary-7d1f"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nHuge\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="run"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()

    async def chunks() -> AsyncIterator[bytes]:
        for piece in (head, *(b"S" * CHUNK for _ in range(size // CHUNK)), f"\r\n--{boundary}--\r\n".encode()):
            sent.append(len(piece))
            yield piece

    return {"content-type": f"multipart/form-data; boundary={boundary}"}, chunks()


def test_an_oversized_upload_is_refused_while_it_streams(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path)
    sam = invite(cfg.db, "sam", "submitter")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            sent: list[int] = []
            headers, chunks = multipart(csrf, "huge.run", 50 * LIMIT, sent)
            response = await http.post("/submit", content=chunks, headers=headers)
            assert response.status_code == 413, response.text[-800:]
            assert f"at most {LIMIT:,} bytes" in error_message(response)
            assert sum(sent) <= LIMIT + FORM_ALLOWANCE + CHUNK  # refused as it arrived, not once all was read
            assert (await http.get("/submit")).status_code == 200

    run(body)
    assert left_behind(cfg) == []


def test_uploads_per_submitter_and_day_are_limited(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, daily_submissions=2)
    sam, kim = invite(cfg.db, "sam", "submitter"), invite(cfg.db, "kim", "submitter")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, sam)
            csrf = csrf_of((await http.get("/submit")).text)
            for _ in range(2):  # refused uploads count: checking them cost the server as much
                assert (await submit(http, csrf, "X", "notes.txt", b"not a run")).status_code == 400
            sent: list[int] = []
            headers, chunks = multipart(csrf, "third.run", 4 * CHUNK, sent)
            held = await http.post("/submit", content=chunks, headers=headers)
            assert held.status_code == 429, held.text[-800:]
            assert "today's limit of 2 uploads" in error_message(held)
            assert 0 < int(held.headers["retry-after"]) <= 24 * 3600
            assert sum(sent) < CHUNK  # refused before its file was read (at most the form's head was pulled)
        async with arena_client(cfg) as http:  # another submitter's uploads are their own
            await sign_in(http, kim)
            csrf = csrf_of((await http.get("/submit")).text)
            response = await submit(http, csrf, "Kim's", "coder.run", arena_runs.runs[1].read_bytes())
            assert response.status_code == 200, response.text[-800:]

    run(body)


def client_from(app: object, address: str) -> httpx.AsyncClient:
    """An in-process client of `app` whose requests come from `address`."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://arena.test")


async def vote(http: httpx.AsyncClient, page: httpx.Response | None = None) -> httpx.Response:
    page = page or await http.get("/compare")
    assert page.status_code == 200, page.text[-800:]
    return await http.post(
        "/vote", data={"comparison": comparison_of(page.text), "choice": "tie", "csrf": csrf_of(page.text)}
    )


@pytest.mark.parametrize(("window", "settings"), [
    ("in the last hour", {"address_votes_per_hour": 3, "address_votes_per_day": 100}),
    ("in the last 24 hours", {"address_votes_per_hour": 100, "address_votes_per_day": 3}),
])  # fmt: skip
def test_votes_per_client_address_are_limited(
    arena_runs: ArenaFixture, tmp_path: Path, window: str, settings: dict[str, int]
) -> None:
    cfg = config(arena_runs, tmp_path, **settings)
    tokens = [invite(cfg.db, name) for name in ("ann", "bo", "cy")]
    app = create_app(cfg)

    async def body() -> None:
        async with client_from(app, "203.0.113.7") as ann, client_from(app, "203.0.113.7") as bo:
            await sign_in(ann, tokens[0])
            await sign_in(bo, tokens[1])
            for _ in range(2):
                assert (await vote(ann)).status_code == 303
            open_page = await bo.get("/compare")  # shown while the address still had a vote left
            assert (await vote(ann)).status_code == 303
            held = await vote(bo, open_page)
            assert held.status_code == 429, held.text[-800:]
            message = error_message(held)
            assert f"too many votes from your address {window} (at most 3)" in message
            assert 0 < int(held.headers["retry-after"]) <= (3600 if window == "in the last hour" else 86400)
            again = await bo.get("/compare")
            assert again.status_code == 429 and "too many votes from your address" in error_message(again)
        async with client_from(app, "198.51.100.20") as cy:  # another address votes on
            await sign_in(cy, tokens[2])
            assert (await vote(cy)).status_code == 303

    run(body)


def test_the_daily_vote_cap_says_when_to_come_back(arena_runs: ArenaFixture, tmp_path: Path) -> None:
    cfg = config(arena_runs, tmp_path, daily_cap=1)
    ann = invite(cfg.db, "ann")

    async def body() -> None:
        async with arena_client(cfg) as http:
            await sign_in(http, ann)
            assert (await vote(http)).status_code == 303
            held = await http.get("/compare")
            assert held.status_code == 429 and "today's limit of 1 votes" in error_message(held)
            assert 0 < int(held.headers["retry-after"]) <= 24 * 3600

    run(body)
