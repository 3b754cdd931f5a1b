"""report.html opened from disk in headless Chromium with the network cut: every chart renders, nothing is fetched,
and labels and model names holding markup show as text."""

import shutil
from pathlib import Path

import pytest

from biarena.cli import report_cmd
from biarena.runner import RunStore
from tests.test_report_stats import VOTES, judged, vote_file  # noqa: F401  (judged is a fixture)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium (Debian's `chromium` package) to open the report")
def test_every_chart_renders_offline_in_chromium(judged: dict[str, Path], tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    arena = tmp_path / "arena.sqlite"
    arena.write_bytes(b"")
    monkeypatch.setattr("biarena.votes.vote_file.load_votes", lambda path: vote_file(VOTES))
    report = tmp_path / "report.html"
    report_cmd.report(
        runs=[judged["alpha"], judged["beta"]],
        out=report,
        form=None,
        title="browser check",
        labels=None,
        arena=arena,
        judge_check=[judged["check"]],
        judge_votes=[],
    )
    requested: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.set_offline(True)

            def guard(route) -> None:
                requested.append(route.request.url)
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", guard)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(report.as_uri())
            charts = page.eval_on_selector_all(
                "svg.chart",
                """nodes => nodes.map(svg => {
                    const box = svg.getBoundingClientRect();
                    return {title: svg.getAttribute('aria-label'), width: box.width, height: box.height,
                            marks: svg.querySelectorAll('rect, circle').length};
                })""",
            )
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
            page.locator("#questions > details").first.click()
            page.screenshot(path=str(tmp_path / "report-question.png"))
        finally:
            browser.close()
    titles = [chart["title"] for chart in charts]
    for expected in (
        "SER by question type",
        "Mean corgi score by question type",
        "corgi dimensions per system",
        "Bradley-Terry strength (log scale) with 95% intervals",
        "judge check: corgi",
    ):
        assert expected in titles, titles
    for chart in charts:
        assert chart["width"] > 50 and chart["height"] > 50, chart
        assert chart["marks"] > 0, chart  # bars or points drawn, not an empty frame
    assert not errors
    assert requested and all(url.startswith("file://") for url in requested), requested
    assert (tmp_path / "report.png").stat().st_size > 10_000


NAMED = {
    "alpha": "<script>alert('alpha')</script><b>a</b>",
    "beta": "<img src=x onerror=alert('beta')>",
}
"""Run labels (`run --label`) holding markup."""
MODEL = "<a href=https://evil.test/>model</a>"
"""A model name as `run --model` stores it, holding a link."""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium (Debian's `chromium` package) to open the report")
def test_labels_and_names_holding_markup_show_as_text(
    judged: dict[str, Path], tmp_path: Path, monkeypatch  # noqa: F811
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    runs = []
    for name, label in NAMED.items():
        run = tmp_path / f"{name}.run"
        shutil.copyfile(judged[name], run)
        with RunStore(run) as store:
            spec = store.spec()
            assert spec is not None
            model = MODEL if name == "beta" else spec.model
            store.update(spec.model_copy(update={"label": label, "model": model}), [])
        runs.append(run)
    arena = tmp_path / "arena.sqlite"
    arena.write_bytes(b"")
    votes = [(NAMED[left], NAMED[right], winner) for left, right, winner in VOTES]
    monkeypatch.setattr("biarena.votes.vote_file.load_votes", lambda path: vote_file(votes))
    report = tmp_path / "report.html"
    report_cmd.report(
        runs=runs, out=report, form=None, title="names check", labels=None, arena=arena, judge_check=None,
        judge_votes=[],
    )
    dialogs: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context()
            context.set_offline(True)
            page = context.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.goto(report.as_uri())
            for details in page.locator("#questions > details").all()[:3]:
                details.click()  # the answers, each under its run's label
            made = page.evaluate(
                """() => ({
                    scripts: document.scripts.length,
                    images: document.images.length,
                    links: [...document.links].filter(a => a.protocol.startsWith('http')).map(a => a.href),
                    bold_a: [...document.querySelectorAll('b')].filter(b => b.textContent === 'a').length,
                    titles: [...document.querySelectorAll('svg.chart title')].map(t => t.textContent).join(' '),
                })"""
            )
            shown = page.inner_text("body")
        finally:
            browser.close()
    assert (made["scripts"], made["images"], made["links"], made["bold_a"]) == (1, 0, [], 0)  # its own filter script
    for label in NAMED.values():
        assert label in shown, label
        assert label in made["titles"], label  # chart tooltips name the runs too
    assert MODEL in shown
    assert not dialogs
