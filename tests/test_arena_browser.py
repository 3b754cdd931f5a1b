"""The arena in a real headless Chromium against the real server: sign in after a typo, vote three times."""

import re
import shutil
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.arena_helpers import IDENTIFYING, invite, make_arena_runs, served_arena

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(), reason="needs Debian's chromium package (apt-get install -y chromium)"
    ),
]


def board_counts(page: Page) -> tuple[int, int]:
    """(total votes, sum of the per-system vote counts) as the leaderboard shows them."""
    total = int(page.inner_text("#total-votes"))
    return total, sum(int(cell) for cell in page.locator("td.votes").all_inner_texts())


def test_sign_in_vote_three_times_and_see_the_leaderboard_change(tmp_path: Path, sales_db: Path) -> None:
    fixture = make_arena_runs(tmp_path, sales_db, 4)
    db = tmp_path / "arena.sqlite"
    token = invite(db, "Ann")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    requested: list[str] = []
    with served_arena(fixture.runs, db, "--bootstrap", "50") as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda request: requested.append(request.url))
            page.goto(f"{base}/leaderboard")
            assert urlparse(page.url).path == "/login"
            page.fill("input[name=token]", "a-mistyped-token")
            page.click("button:has-text('Sign in')")
            assert "unknown invite token" in page.inner_text(".error-message")
            page.go_back()  # each sign-in form works once: going back must bring a fresh one, not a stale copy
            page.fill("input[name=token]", token)
            page.click("button:has-text('Sign in')")
            page.wait_for_url(f"{base}/compare")
            page.screenshot(path=str(shots / "compare.png"), full_page=True)

            page.goto(f"{base}/leaderboard")
            assert board_counts(page) == (0, 0)
            page.screenshot(path=str(shots / "leaderboard-before.png"), full_page=True)

            revealed = []
            for number, choice in enumerate(("A is better", "B is better", "keyboard"), start=1):
                page.goto(f"{base}/compare")
                assert page.locator("#side-a .answer").count() == 1 and page.locator("#side-b .answer").count() == 1
                shown = page.inner_text("main").lower()
                for word in IDENTIFYING:
                    assert word.lower() not in shown, word
                if choice == "keyboard":
                    page.keyboard.press("3")  # the page's script: key 3 votes a tie
                else:
                    page.fill("textarea[name=rationale]", f"reason {number}")
                    page.click(f"button:has-text('{choice}')")
                page.wait_for_url(re.compile(r".*/reveal/.*"))
                page.screenshot(path=str(shots / f"reveal-{number}.png"))
                revealed.append((page.inner_text("#system-a"), page.inner_text("#system-b")))
                assert "tie" in page.inner_text(".choice") or choice != "keyboard"

            assert all(a != b and a and b for a, b in revealed)
            page.click("#next + a")
            page.wait_for_url(f"{base}/leaderboard")
            assert board_counts(page) == (3, 6)
            page.screenshot(path=str(shots / "leaderboard-after.png"), full_page=True)
        finally:
            browser.close()
    assert all(urlparse(url).hostname == "127.0.0.1" for url in requested), requested
    assert sorted(p.name for p in shots.iterdir()) == [
        "compare.png", "leaderboard-after.png", "leaderboard-before.png", "reveal-1.png", "reveal-2.png",
        "reveal-3.png",
    ]
    assert all(p.stat().st_size > 1000 for p in shots.iterdir())
