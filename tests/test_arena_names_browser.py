"""Names anyone can choose (run labels, submitted system names, invited user names) holding markup show as text on
every arena page, in a real headless Chromium with the page's CSP switched off: nothing they hold runs or renders."""

import re
import shutil
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, sync_playwright

from biarena.runner import RunStore
from tests.arena_helpers import invite, make_arena_runs, served_arena

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(CHROMIUM).is_file(), reason="needs Debian's chromium package (apt-get install -y chromium)"
    ),
]

LABELS = (
    "<script>alert('label')</script>",
    "<img src=x onerror=alert('label')>",
    "<a href=https://evil.test/>label</a>",
)
"""Run labels (`run --label`, at most 40 characters shown) of the three served runs."""
SYSTEMS = (
    "<script>alert('system')</script><img src=x onerror=alert(2)>",
    "<a href=https://evil.test/>system</a>",
)
"""System names (at most 60 characters) given to runs submitted through /submit."""
USER = "<script>alert('user')</script><img src=x onerror=alert(3)><a href=//e.test>u</a>"
"""The signed-in admin's name, shown in every page's header."""
INVITED = "<b>eve</b><script>alert(9)</script>"
"""A name invited through the admin page."""

INERT = """() => ({
    scripts: [...document.scripts].filter(s => !s.src.endsWith('/static/arena.js')).length,
    images: document.images.length,
    bold: document.querySelectorAll('b').length,
    links: [...document.links].filter(a => a.hostname !== location.hostname).map(a => a.href),
})"""
"""What markup from a name would have made: scripts besides the arena's own, images, bold text, outside links."""


def relabel(run: Path, label: str) -> None:
    """Give a run file the label `run --label` would have."""
    with RunStore(run) as store:
        spec = store.spec()
        assert spec is not None
        store.update(spec.model_copy(update={"label": label}), [])


def shows_as_text(page: Page, *names: str) -> None:
    """The page holds no element a name could have made, and shows each of `names` as the very text it is."""
    made = page.evaluate(INERT)
    assert made == {"scripts": 0, "images": 0, "bold": 0, "links": []}, (page.url, made)
    shown = page.inner_text("body")
    for name in names:
        assert name in shown, (page.url, name)


def test_names_holding_markup_show_as_text_on_every_page(tmp_path: Path, sales_db: Path) -> None:
    fixture = make_arena_runs(tmp_path, sales_db, 4)
    for run, label in zip(fixture.runs, LABELS, strict=True):
        relabel(run, label)
    db = tmp_path / "arena.sqlite"
    token = invite(db, USER, "admin")
    dialogs: list[str] = []
    errors: list[str] = []
    requested: list[str] = []
    with served_arena(fixture.runs, db, "--bootstrap", "20") as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            # Without the CSP an escaping slip would run its script; with it, a slip could hide behind it.
            context = browser.new_context(bypass_csp=True)
            page = context.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("request", lambda request: requested.append(request.url))
            page.goto(f"{base}/login")
            page.fill("input[name=token]", token)
            page.click("button:has-text('Sign in')")
            page.wait_for_url(f"{base}/compare")
            shows_as_text(page, USER)

            for name in SYSTEMS:
                page.goto(f"{base}/submit")
                page.fill("form.submit input[name=name]", name)
                page.set_input_files("form.submit input[name=run]", str(fixture.runs[2]))
                page.click("form.submit button")
                page.wait_for_selector("#added")
                assert page.inner_text("#added strong") == name
                shows_as_text(page, USER, name)
            page.goto(f"{base}/submit")
            page.fill("form.submit input[name=name]", SYSTEMS[1])
            page.set_input_files("form.submit input[name=run]", str(fixture.runs[2]))
            page.click("form.submit button")
            page.wait_for_selector(".error-message")
            assert "already in the arena" in page.inner_text(".error-message")
            shows_as_text(page, USER, SYSTEMS[1])

            page.goto(f"{base}/admin")
            page.fill("form.invite input[name=name]", INVITED)
            page.click("form.invite button")
            page.wait_for_selector("#new-token")
            shows_as_text(page, USER, INVITED)
            assert page.inner_text("p.ok strong") == INVITED
            page.goto(f"{base}/admin")
            assert {USER, INVITED} <= set(page.locator("table.board td:first-child").all_inner_texts())
            shows_as_text(page, USER, INVITED)

            everyone = {*LABELS, *SYSTEMS}
            revealed: set[str] = set()
            for _ in range(20):  # the least-compared pair comes first: every system is shown within a few votes
                page.goto(f"{base}/compare")
                shows_as_text(page, USER)
                page.click("button[value=left]")
                page.wait_for_url(re.compile(r".*/reveal/.*"))
                pair = {page.inner_text("#system-a"), page.inner_text("#system-b")}
                assert pair <= everyone, pair
                shows_as_text(page, USER, *pair)
                revealed |= pair
                if revealed == everyone:
                    break
            assert revealed == everyone

            page.goto(f"{base}/leaderboard")
            shows_as_text(page, USER, *everyone)
            assert set(page.eval_on_selector_all("tr[data-system]", "rows => rows.map(r => r.dataset.system)")) == (
                everyone
            )
            page.goto(f"{base}/login")
            shows_as_text(page, USER)
        finally:
            browser.close()
    assert not dialogs and not errors, (dialogs, errors)
    fetched = [urlparse(url) for url in requested]
    assert all(url.hostname == "127.0.0.1" and not url.path.endswith("/x") for url in fetched), requested
