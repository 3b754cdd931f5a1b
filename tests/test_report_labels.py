"""Runs named by short labels: `agent · model` unless chosen, numbered when they clash, at most 40 characters in
every heading, legend and chart; the full spec once in the runs table; a two-run report looked at in Chromium."""

import os
import shutil
from pathlib import Path

import pytest

from biarena.records import RunSpec
from biarena.report import RunData, label_runs
from biarena.report.run_names import LABEL_WIDTH, short_label, short_model
from tests.cli_in_process import cli

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LOCAL = "local:/root/.cache/biarena/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
LONG_OPTIONS = {"answer_tokens": 125, "max_queries": 2, "max_tokens": 450, "prompt_hash": "7177781c516b"}


def spec(**values: object) -> RunSpec:
    """A run spec of the sequential agent with the local model unless `values` say otherwise."""
    fields = {"benchmark": "b", "benchmark_name": "b", "system": "sequential", "model": LOCAL, "options": LONG_OPTIONS}
    return RunSpec(**{**fields, **values})


@pytest.mark.parametrize(
    ("model", "short"),
    [
        (LOCAL, "qwen2.5-coder-1.5b"),
        ("local", "local"),
        ("openai:gpt-4o-mini@http://127.0.0.1:8080/v1", "gpt-4o-mini"),
        ("openai:Qwen2.5-7B-Instruct-Q8_0.gguf", "Qwen2.5-7B"),
        ("mock:scripted", "mock"),
    ],
)
def test_models_are_named_as_people_say_them(model: str, short: str) -> None:
    assert short_model(model) == short


def test_a_default_label_becomes_agent_and_model() -> None:
    stored = spec()
    stored = stored.model_copy(update={"label": stored.default_label("seq")})
    assert len(stored.label or "") > LABEL_WIDTH
    assert stored.given_label() is None
    assert short_label(stored) == "sequential · qwen2.5-coder-1.5b"
    chosen = spec(label="baseline")
    assert chosen.given_label() == "baseline" and short_label(chosen) == "baseline"
    assert short_label(spec(system="predictions", model=None, options={"predictions": "/x/alpha.jsonl"})) == (
        "predictions · alpha"
    )


def test_clashing_labels_are_numbered_and_long_ones_clipped() -> None:
    runs = [RunData(Path(f"/x/{d}/seq.run"), spec(), [], [], []) for d in ("monday", "tuesday")]
    runs.append(RunData(Path("/x/c.run"), spec(label="a very long label someone chose for the third run"), [], [], []))
    label_runs(runs)
    labels = [r.label for r in runs]
    assert labels[:2] == ["sequential · qwen2.5-coder-1.5b #1", "sequential · qwen2.5-coder-1.5b #2"]
    assert len(set(labels)) == 3 and all(len(label) <= LABEL_WIDTH for label in labels)
    assert "…" in labels[2] and labels[2].startswith("a very") and labels[2].endswith("third run")


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two scored runs of the same agent and model over four built-in questions, neither given a label."""
    root = tmp_path_factory.mktemp("labels")
    assert cli("build", "bis-synth", "-o", root / "bench").returncode == 0
    runs = []
    for name, words in (("first", "120"), ("second", "300")):
        run = root / f"{name}.run"
        made = cli("run", root / "bench", "--agent", "sequential", "--model", "mock", "--answer-words", words,
                   "--per-category", "1", "--limit", "4", "-o", run)  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert cli("score", run).returncode == 0
        runs.append(run)
    return runs


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium (Debian's `chromium` package) to open the report")
def test_two_run_report_names_runs_shortly_in_chromium(two_runs: list[Path], tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    report = tmp_path / "report.html"
    assert cli("report", *two_runs, "-o", report).returncode == 0
    screenshot = Path(os.environ.get("BIARENA_REPORT_SCREENSHOT", tmp_path / "report.png"))
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(report.as_uri())
            headings = page.eval_on_selector_all("h1, h2, h3, h4", "nodes => nodes.map(n => n.textContent.trim())")
            legends = page.eval_on_selector_all(".key, td.run-name", "nodes => nodes.map(n => n.textContent.trim())")
            runs_table = page.eval_on_selector_all(
                ".runs-legend tr", "rows => rows.slice(1).map(r => Array.from(r.cells, c => c.textContent.trim()))"
            )
            font = page.evaluate("getComputedStyle(document.body).fontFamily")
            cut = page.eval_on_selector_all(
                "svg.chart text",
                """nodes => nodes.filter(t => {
                    const svg = t.ownerSVGElement.getBoundingClientRect(), box = t.getBoundingClientRect();
                    return box.left < svg.left - 1 || box.right > svg.right + 1 || box.bottom > svg.bottom + 1;
                }).map(t => t.textContent)""",
            )
            values = page.eval_on_selector_all("svg.chart text.value", "nodes => nodes.length")
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    labels = ["sequential · mock #1", "sequential · mock #2"]
    assert [row[0] for row in runs_table] == labels
    assert all(row[1] == "sequential" and row[2] == "mock:scripted" and "answer_words=" in row[3] for row in runs_table)
    assert set(labels) <= set(legends) and set(labels) <= set(headings), (legends, headings)
    named = [text for text in headings if text.startswith("sequential")]
    assert named and all(len(text) <= LABEL_WIDTH for text in [*named, *legends]), [*named, *legends]
    assert not [text for text in [*headings, *legends] if "=" in text or "mock:" in text]  # no spec outside its table
    assert not cut, cut  # axis and category names inside their charts
    assert values > 0  # bars carry their values
    assert "Noto Sans CJK SC" in font
    assert screenshot.stat().st_size > 10_000
