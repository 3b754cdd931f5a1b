"""A report of three runs named after long predictions files, judged, opened in headless Chromium at 1280 px: the
summary table fits without scrolling sideways (its tokens column in view), every label keeps its model's name, and
every chart titles its value axis."""

import random
import shutil
from pathlib import Path

import pytest

from biarena.benchmarks import save_benchmark
from biarena.records import Benchmark, DatabaseRef
from biarena.runner import RunStore
from tests.conftest import make_sales_db
from tests.run_helpers import cli, write_predictions
from tests.test_report_stats import _judge_scores, _questions

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
MODELS = ("gpt-4", "claude-3-opus", "llama3-70b")
"""The model in each predictions file's name, as BIRD names them (`predict_mini_dev_MODEL_DIALECT.json`)."""


@pytest.fixture(scope="module")
def long_named_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three scored and judged runs of the predictions system, each named after its file (no --label)."""
    root = tmp_path_factory.mktemp("layout")
    questions = _questions()
    bench = save_benchmark(
        Benchmark(
            name="typed",
            databases={"sales": DatabaseRef(path=str(make_sales_db(root / "s.sqlite")))},
            questions=questions,
        ),
        root / "bench",
    )
    runs = []
    for n, model in enumerate(MODELS):
        rows = [
            {"question_id": q.id, "sql": "SELECT nope FROM sales" if i % (n + 2) == 0 else q.gold_sql[0]}
            for i, q in enumerate(questions)
        ]
        predictions = write_predictions(root / f"predict_mini_dev_{model}_sql.jsonl", rows)
        run = root / f"{n}.run"
        limit = ["--limit", "12"] if n == 2 else []  # questions left unasked add the summary's "not run" column
        made = cli("run", bench, "--system", "predictions", "--predictions", predictions, *limit, "-o", run)
        assert made.returncode == 0, made.stderr
        assert cli("score", run).returncode == 0
        extra = cli("score", run, "--scorer", "test_suite_accuracy", "--scorer", "insight")  # more summary columns
        assert extra.returncode == 0, extra.stderr
        rng = random.Random(model)
        with RunStore(run) as store:
            answered = {answer.question_id for answer in store.answers()}
            for i, q in enumerate(questions):
                if q.id in answered:
                    store.put_scores(_judge_scores(q.id, 4.0 - 0.8 * (i % 3) - n * 0.5, "corgi", rng))
        runs.append(run)
    return runs


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium (Debian's `chromium` package) to open the report")
def test_the_summary_fits_1280_px_and_labels_keep_their_model(long_named_runs: list[Path], tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    report = tmp_path / "report.html"
    made = cli("report", *long_named_runs, "-o", report)
    assert made.returncode == 0, made.stderr
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(report.as_uri())
            summary = page.evaluate(
                """() => {
                    const heading = Array.from(document.querySelectorAll('h2')).find(h => h.textContent === 'Summary');
                    const table = heading.nextElementSibling.querySelector('table');
                    const box = table.parentElement;
                    const tokens = Array.from(table.rows[0].cells).find(c => c.textContent.trim() === 'tokens');
                    return {scroll: box.scrollWidth, client: box.clientWidth,
                            page: document.documentElement.scrollWidth,
                            tokensRight: tokens.getBoundingClientRect().right,
                            boxRight: box.getBoundingClientRect().right,
                            headers: Array.from(table.rows[0].cells, c => c.textContent.trim())};
                }"""
            )
            labels = page.eval_on_selector_all(
                "td.run-name, .key, h3, h4", "nodes => nodes.map(n => n.textContent.trim())"
            )
            unlabelled = page.eval_on_selector_all(
                "svg.chart", "nodes => nodes.filter(s => !s.querySelector('text.axis-title')).map(s => s.ariaLabel)"
            )
        finally:
            browser.close()
    assert summary["scroll"] <= summary["client"], summary
    assert summary["tokensRight"] <= summary["boxRight"] + 1, summary
    assert summary["page"] <= 1280, summary
    runs = [text for text in labels if text.startswith("predictions")]
    assert all(any(model in text for text in runs) for model in MODELS), runs
    assert all(any(model in text for model in MODELS) for text in runs), runs
    assert not unlabelled, unlabelled
