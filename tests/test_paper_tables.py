"""The DB QA paper's tables from stored judgements, as `show` prints them."""

import shutil
from pathlib import Path
from types import SimpleNamespace

from biarena.records import Question, Score
from biarena.report.paper_tables import reference_table
from tests.run_helpers import cli

FIXTURE = Path(__file__).parent / "fixtures" / "run_format2.run"


def test_show_prints_table_5_for_a_run_judged_by_peer_review(tmp_path: Path) -> None:
    run = tmp_path / "judged.run"
    shutil.copy(FIXTURE, run)  # opening a run of an older format migrates it: never the committed file
    shown = cli("show", run)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "peer review by stage (DB QA Table 5)" in text
    lines = [line for line in text.splitlines() if "tool_employment" in line]
    assert lines and "1.000" in lines[0]  # the stages the fixture's peer review reached were found Perfect
    assert "all stages" in text


def test_table_2_groups_match_rate_and_mean_score_by_question_type() -> None:
    questions = [
        Question(id=f"q{i}", text="?", database="db", labels=[label])
        for i, label in enumerate(["dbqa:conclusive", "dbqa:conclusive", "dbqa:interpretive"])
    ]

    def score(qid: str, name: str, value: float | None) -> Score:
        return Score(question_id=qid, name=name, scorer="reference", scorer_version="1", value=value)

    scores = [
        score("q0", "reference.match", 1.0),
        score("q1", "reference.match", 0.0),
        score("q2", "reference.score", 4),
    ]
    run = SimpleNamespace(label="r", scores=scores)
    comparison = SimpleNamespace(summaries=[SimpleNamespace(run=run, questions=questions)])
    title, headers, cells, _ = reference_table(comparison)  # type: ignore[arg-type, misc]
    rows = {line[0]: dict(zip(headers, line, strict=True)) for line in cells}
    assert "Table 2" in title
    assert rows["dbqa:conclusive"]["match rate"] == "0.500" and rows["dbqa:conclusive"]["conclusive"] == "2"
    assert rows["dbqa:interpretive"]["mean score"] == "4.00"
    assert rows["all"]["judged"] == "3"
