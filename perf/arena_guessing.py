"""Token guessing against `biarena arena serve` (real uvicorn on loopback), as an attacker would try it.

Sends GUESSES wrong tokens from one address, CONCURRENCY at a time (each with a fresh sign-in form), then the
right token; prints how many were answered 401 (looked at) and 429 (held back), the Retry-After given, what
happened to the right token, and the wall time.
Run: python perf/arena_guessing.py [GUESSES] [CONCURRENCY]
"""

import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.arena_helpers import invite, login_csrf_of, make_arena_runs, served_arena
from tests.conftest import make_sales_db


async def attempt(http: httpx.AsyncClient, token: str) -> httpx.Response:
    """One sign-in: open a fresh form, post the token."""
    form = await http.get("/login")
    return await http.post("/login", data={"token": token, "csrf": login_csrf_of(form.text)})


async def guess(base: str, guesses: int, concurrency: int, right: str) -> tuple[Counter, set[str], int]:
    """Send the guesses, then the right token: (statuses, Retry-After values, the right token's status)."""
    responses: list[httpx.Response] = []

    async def worker(first: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            for number in range(first, guesses, concurrency):
                responses.append(await attempt(http, f"{number:06d}-not-a-token-{'x' * 20}"))

    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    retry = {r.headers["retry-after"] for r in responses if "retry-after" in r.headers}
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        right_status = (await attempt(http, right)).status_code
    return Counter(r.status_code for r in responses), retry, right_status


def main() -> None:
    """Measure and print."""
    guesses = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        fixture = make_arena_runs(root, make_sales_db(root / "sales.sqlite"), 3)
        db = root / "arena.sqlite"
        right = invite(db, "ann")
        with served_arena(fixture.runs, db) as base:
            started = time.perf_counter()
            statuses, retry, right_status = asyncio.run(guess(base, guesses, concurrency, right))
            seconds = time.perf_counter() - started
    print(f"wrong tokens sent: {guesses} from one address, {concurrency} at a time")
    print(f"answered 401 (checked): {statuses.get(401, 0)}, 429 (held back): {statuses.get(429, 0)}, "
          f"other: {sum(n for s, n in statuses.items() if s not in (401, 429))}")
    print(f"Retry-After given (s): {min(retry, key=int, default='none')} to {max(retry, key=int, default='none')}")
    print(f"the right token afterwards: {right_status}")
    print(f"wall time: {seconds:.2f} s")


if __name__ == "__main__":
    main()
