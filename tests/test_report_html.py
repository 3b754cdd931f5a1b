"""The HTML report: runs told apart, different question sets warned about, a drill-down that shows outcomes."""

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from tests.test_cli_output import cli, ok, one_line_error, shop  # noqa: F401  (shop is a fixture)


def summaries(html: str) -> dict[str, str]:
    """Question id -> the text of its collapsed row (the <summary>), tags stripped."""
    found = {}
    for block in re.findall(r"<summary>(.*?)</summary>", html, flags=re.S):
        text = unescape(re.sub(r"<[^>]+>", " ", block))
        match = re.search(r"\b(q\d)\b", text)
        if match:
            found[match.group(1)] = " ".join(text.split())
    return found


def test_two_runs_of_one_system_get_two_names(shop: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    for folder in ("monday", "tuesday"):
        (tmp_path / folder).mkdir()
        shutil.copy(shop["pred"], tmp_path / folder / "pred.run")
    report = tmp_path / "report.html"
    ok(cli("report", tmp_path / "monday" / "pred.run", tmp_path / "tuesday" / "pred.run", "-o", report))
    html = report.read_text(encoding="utf-8")
    legend = re.findall(r'<span class="key">.*?</i>(.*?)</span>', html)
    # a chart per headline metric (SER, EA, Sem, Res F1), two distinct names each
    assert len(legend) == 8 and len(set(legend[:2])) == 2, legend
    assert legend[:2] == ["predictions #1", "predictions #2"]
    # the runs table names each run's file with its folder
    assert "monday/pred.run" in html and "tuesday/pred.run" in html
    ok(cli("report", shop["pred"], shop["gold"], "--label", "mine", "--label", "reference", "-o", report))
    html = report.read_text(encoding="utf-8")
    assert re.findall(r'<span class="key">.*?</i>(.*?)</span>', html)[:2] == ["mine", "reference"]


def test_different_question_sets_are_warned_about_and_compared_on_the_shared_ones(
    shop: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    report = tmp_path / "report.html"
    result = ok(cli("report", shop["pred"], shop["first3"], "-o", report))
    assert "cover different questions" in result.stderr
    html = report.read_text(encoding="utf-8")
    assert 'class="warning"' in html and "scores compare the 3 they share" in html
    assert "3 questions compared" in html
    rows = re.findall(r"<tr><td class=\"run-name\"><span class=\"swatch\".*?</tr>", html, flags=re.S)[:2]
    assert len(rows) == 2 and all("/3</td>" in r for r in rows)


def test_the_drill_down_shows_each_outcome_and_the_reference(shop: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    report = tmp_path / "report.html"
    ok(cli("report", shop["pred"], shop["gold"], "--label", "mine", "--label", "gold", "-o", report))
    html = report.read_text(encoding="utf-8")
    rows = summaries(html)
    assert set(rows) == {"q0", "q1", "q2", "q3", "q4", "q5"}
    assert "mine: ran · EA 1" in rows["q0"] and "mine: ran · EA 0" in rows["q2"]
    assert "mine: SQL failed" in rows["q1"] and "mine: no answer" in rows["q4"]
    assert "gold: ran · EA 1" in rows["q0"]
    assert "Reference answer" in html and "The spring promotion doubled orders in Dublin." in html
    assert "[/x] revenue by city" in html
    # The filters: outcome, category and text.
    for control in ("filter-text", "filter-category", "filter-outcome", "filter-run"):
        assert f'id="{control}"' in html
    for outcome in ("ran", "sql_failed", "no_answer", "unanswered"):
        assert f'<option value="{outcome}">' in html
    assert 'data-o0="sql_failed"' in html and 'data-category="bis:aggregation"' in html


def test_the_report_is_self_contained(shop: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    report = tmp_path / "report.html"
    ok(cli("report", shop["pred"], "-o", report))
    html = report.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img)[^>]*\b(src|href)=", html)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    one_line_error(cli("report", shop["pred"], shop["bench"], "-o", report), "is a directory")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium to run the report's script in")
def test_the_filters_work_in_a_browser(shop: dict[str, Path], tmp_path: Path) -> None:  # noqa: F811
    report = tmp_path / "report.html"
    ok(cli("report", shop["pred"], shop["gold"], "-o", report))

    def visible(fragment: str) -> list[str]:
        dom = subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--dump-dom",
                f"{report.as_uri()}#{fragment}",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        tags = re.findall(r"<details data-text[^>]*>", dom)  # the questions, not the folded parts inside answers
        assert len(tags) == 6, dom[:500]
        return [re.search(r'data-text="(q\d)', t).group(1) for t in tags if "display: none" not in t]

    assert visible("outcome=sql_failed") == ["q1", "q3"]  # q3: the gold run's own gold fails
    assert visible("outcome=sql_failed&run=0") == ["q1"]
    assert visible("outcome=no_answer&run=0") == ["q4", "q5"]
    assert visible("category=bis:aggregation") == ["q2", "q3"]
    assert visible("text=spring") == ["q5"]
    assert visible("outcome=right&run=1&category=bis:filtering") == ["q0", "q1"]
