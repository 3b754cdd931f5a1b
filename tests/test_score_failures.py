"""`score` names the results that failed (question, scorer, why), and `score --failed` lists them all."""

from pathlib import Path

import pytest

from biarena.metrics import MetricScorer, ScoringContext
from biarena.records import Answer, Question, Score
from biarena.scoring import SCORERS, ScoreInfo
from tests.cli_in_process import cli as in_process
from tests.run_helpers import cli, make_shop


class BrokenScorer(MetricScorer):
    """A metric that breaks on every answer but `q0000`'s."""

    name = "broken"
    version = "1"
    infos = (ScoreInfo("broken", "Broken", "breaks on purpose", headline=True),)

    def __call__(self, question: Question, answer: Answer, context: ScoringContext) -> list[Score]:
        """Break, but on `q0000`."""
        if question.id == "q0000":
            return []
        raise ValueError(f"cannot read {question.id}")


@pytest.fixture
def gold_run(tmp_path: Path, sales_db: Path) -> Path:
    bench = make_shop(tmp_path, sales_db)
    run = tmp_path / "gold.run"
    assert cli("run", bench, "--system", "gold", "-o", run).returncode == 0
    return run


def test_score_lists_the_failed_questions_with_why(gold_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SCORERS, "broken", BrokenScorer)
    monkeypatch.setattr("biarena.scoring.execute.SHOWN_FAILURES", 3)
    scored = in_process("score", gold_run, "--scorer", "broken")
    assert scored.returncode == 0, scored.stderr
    assert "5 failed:" in scored.stderr
    assert "  q0001 (broken): scoring failed (ValueError: cannot read q0001)" in scored.stderr
    assert "q0003 (broken)" in scored.stderr and "q0004 (broken)" not in scored.stderr
    assert f"... and 2 more: list them all with biarena score {gold_run} --failed" in scored.stderr
    assert f"biarena show {gold_run} --trace QUESTION_ID" in scored.stderr

    listed = in_process("score", gold_run, "--failed")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["q0001", "q0002", "q0003", "q0004", "q0005"]
    assert "5 failed results" in listed.stderr
