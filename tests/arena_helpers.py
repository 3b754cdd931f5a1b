"""What the arena tests share: a small benchmark with three scored runs, invited users, a served arena."""

import html
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from biarena.agents import make_system
from biarena.arena.store import ArenaStore
from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.llm import MockProvider, Model
from biarena.metrics import ScoringContext
from biarena.records import Answer, Benchmark, RunSpec, Step, SystemSpec
from biarena.runner import RunStore, benchmark_fingerprint, make_spec, open_run, run_benchmark
from biarena.scoring import default_scorers, score_run, setup_scorers
from tests.run_helpers import make_shop

if TYPE_CHECKING:
    from fastapi import FastAPI

    from biarena.arena.config import ArenaConfig

CHATTY_TEXT = (
    "As **GPT-4o-mini**, a model by OpenAI, I found the answer.\n\n"
    "| city | total |\n|---|---|\n| 1 | 42 |\n\n"
    "<script>alert('x')</script> Chatty Analyst recommends focusing on city 1."
)
"""Prose that names its model, vendor and system, with a table and a script tag that must stay text."""

IDENTIFYING = ("gold", "mocked-coder", "Chatty Analyst", "chatty.run", "gold.run", "coder.run", "gpt-4o-mini", "OpenAI")
"""Words that would tell the systems apart: names, models, run files."""


@dataclass
class ArenaFixture:
    """Runs to serve and the benchmark they answer."""

    benchmark_dir: Path
    runs: list[Path]


def _finish(store: RunStore, benchmark: Benchmark, pool: DatabasePool) -> None:
    score_run(store, setup_scorers(default_scorers(), ScoringContext(benchmark=benchmark, databases=pool)))
    store.close()


def make_arena_runs(root: Path, sales_db: Path, count: int = 10) -> ArenaFixture:
    """Three scored runs of a `count`-question benchmark: gold, a mock-model text2sql agent, and a chatty system."""
    bench_dir = make_shop(root, sales_db, count)
    benchmark = load_benchmark(bench_dir)
    pool = DatabasePool(benchmark)
    questions = benchmark.questions
    fingerprint = benchmark_fingerprint(benchmark, pool, questions)

    gold = make_system("gold")
    store = RunStore(root / "gold.run", create=True)
    open_run(store, make_spec(str(bench_dir), benchmark, gold, questions, fingerprint=fingerprint), questions)
    run_benchmark(benchmark, gold, store, pool, questions)
    _finish(store, benchmark, pool)

    def reply(request: object) -> str:
        return "```sql\nSELECT city_id, count(*) FROM sales GROUP BY city_id\n```"

    model = Model(MockProvider([reply], model="mocked-coder"), cache=None, backoff=0.0, retries=1)
    coder = make_system("text2sql", model=model)
    store = RunStore(root / "coder.run", create=True)
    spec = make_spec(str(bench_dir), benchmark, coder, questions, fingerprint=fingerprint)
    open_run(store, spec.model_copy(update={"model": "mocked-coder"}), questions)
    run_benchmark(benchmark, coder, store, pool, questions)
    _finish(store, benchmark, pool)

    chatty = RunSpec(
        benchmark=str(bench_dir),
        benchmark_name=benchmark.name,
        system="http",
        model="openai:gpt-4o-mini",
        options={"url": "http://127.0.0.1:9/chatty"},
        question_ids=[q.id for q in questions],
        label="Chatty Analyst",
        fingerprint=fingerprint,
    )
    store = RunStore(root / "chatty.run", create=True)
    store.start(chatty, questions)
    for question in questions:
        sql = "SELECT city_id, sum(amount) AS total FROM sales GROUP BY city_id"
        store.add_answer(
            Answer(
                question_id=question.id,
                system=SystemSpec(agent="http", model="openai:gpt-4o-mini"),
                plan="Sum the amounts per city, as Chatty Analyst always does.",
                steps=[Step(sql=sql, purpose="totals by city", columns=["city_id", "total"], preview=[[1, 42.0]],
                            row_count=1)],
                final_sql=sql,
                text=CHATTY_TEXT,
            )
        )
    _finish(store, benchmark, pool)
    pool.close()
    return ArenaFixture(bench_dir, [root / "gold.run", root / "coder.run", root / "chatty.run"])


def arena_client(app: "FastAPI | ArenaConfig") -> httpx.AsyncClient:
    """An in-process client (httpx ASGI transport, from 127.0.0.1) of an arena app, or of a new one for a config."""
    from biarena.arena.app import create_app
    from biarena.arena.config import ArenaConfig

    if isinstance(app, ArenaConfig):
        app = create_app(app)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://arena.test")


async def sign_in(http: httpx.AsyncClient, token: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """Open the sign-in page and send its form with `token`."""
    form = await http.get("/login")
    return await http.post("/login", data={"token": token, "csrf": login_csrf_of(form.text)}, headers=headers)


def error_message(response: httpx.Response) -> str:
    """The message of the arena's one error page, as the page shows it (its HTML escapes undone)."""
    match = re.search(r'<p class="error-message">(.*?)</p>', response.text, re.S)
    assert match, response.text[:1000]
    return html.unescape(match.group(1))


def invite(db: Path, name: str, role: str = "annotator") -> str:
    """Invite a user into the arena database and return their token."""
    with ArenaStore(db) as store:
        return store.invite(name, role)


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, html[:500]
    return match.group(1)


def login_csrf_of(html: str) -> str:
    """The CSRF token of a sign-in page's own form (a signed-in page's sign-out form carries another)."""
    match = re.search(r'<form method="post" action="/login".*?name="csrf" value="([^"]+)"', html, re.S)
    assert match, html[:500]
    return match.group(1)


def comparison_of(html: str) -> str:
    """The opaque comparison token of a compare page."""
    match = re.search(r'name="comparison" value="([^"]+)"', html)
    assert match, html[:2000]
    return match.group(1)


def free_port() -> int:
    """A free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served_arena(runs: list[Path], db: Path, *extra: str) -> Iterator[str]:
    """`biarena arena serve` running in a real uvicorn on a free loopback port; yields its base URL."""
    port = free_port()
    command = [str(Path(sys.executable).parent / "biarena"), "arena", "serve", "--runs", *map(str, runs),
               "--db", str(db), "--port", str(port), *extra]
    # Its output goes to a file, not a pipe nobody reads: a server that logs much (refused sign-ins) would
    # otherwise block once the pipe is full.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, text=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    output.seek(0)
                    raise AssertionError(f"the arena exited: {output.read()}")
                try:
                    if httpx.get(f"{base}/login", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError("the arena did not start within 60 seconds")
                time.sleep(0.2)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@dataclass
class LoadResult:
    """What a crowd of annotators saw: every status, each vote's latency, the wall time."""

    statuses: list[int]
    vote_seconds: list[float]
    seconds: float
    voted: dict[str, int]
    """Votes each annotator had accepted (a 303 to the reveal page)."""


async def _annotator(base: str, token: str, votes: int, result: LoadResult) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        form = await http.get("/login")
        result.statuses.append(form.status_code)
        signed = await http.post("/login", data={"token": token, "csrf": csrf_of(form.text)})
        result.statuses.append(signed.status_code)
        for _ in range(votes):
            page = await http.get("/compare")
            result.statuses.append(page.status_code)
            if page.status_code != 200:
                continue
            started = time.perf_counter()
            response = await http.post(
                "/vote", data={"comparison": comparison_of(page.text), "choice": "left", "csrf": csrf_of(page.text)}
            )
            result.vote_seconds.append(time.perf_counter() - started)
            result.statuses.append(response.status_code)
            if response.status_code == 303:
                result.voted[token] = result.voted.get(token, 0) + 1


async def drive_annotators(base: str, tokens: list[str], votes: int) -> LoadResult:
    """Every annotator signs in and votes `votes` times, all at once, through the real server."""
    import asyncio

    result = LoadResult([], [], 0.0, {})
    started = time.perf_counter()
    await asyncio.gather(*(_annotator(base, token, votes, result) for token in tokens))
    result.seconds = time.perf_counter() - started
    return result
