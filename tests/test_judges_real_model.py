"""`corgi` with the embedded local model, end to end, on one corgi-synth recommendational answer (slow: 7 calls)."""

import json
import sqlite3
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.records import Answer, Step, SystemSpec
from biarena.runner import RunStore
from tests.judge_run_helpers import write_run
from tests.run_helpers import cli

pytestmark = [pytest.mark.real_model, pytest.mark.slow]


@pytest.mark.extended
def test_corgi_with_the_local_model_scores_a_type4_answer(local_model_installed, tmp_path: Path) -> None:
    built = cli("suite", "corgi", "--verticals", "app-store", "--scale", "0.05", "-o", tmp_path / "suite")
    assert built.returncode == 0, built.stderr
    suite = load_benchmark(tmp_path / "suite")
    question = next(q for q in suite.questions if "corgi:type4" in q.labels)
    suite = suite.model_copy(update={"questions": [question]})
    answer = Answer(
        question_id=question.id,
        system=SystemSpec(agent="sequential", model="local"),
        plan="Compare monthly installs to find the weakest month, then time the promotion before it.",
        steps=[
            Step(
                sql="SELECT strftime('%m', installed_at) AS month, count(*) FROM install GROUP BY 1",
                columns=["month", "installs"],
                preview=[["05", 812], ["12", 1430]],
                row_count=12,
            ),
            Step(sql="SELECT nope FROM install", error="no such column: nope", error_kind="error"),
        ],
        text=(
            "Run the promotion in May. Installs are lowest in May (812, about 15% below the monthly average of 955, "
            "Query 1), during exam season, and highest in December (1,430).\n"
            "Plan: launch a 20% discount on premium apps from 1 May to 31 May, with a budget of 5% of May revenue, "
            "owned by the marketing lead; target +10% installs against last May.\n"
            "Risks: discounts may pull installs forward from June; compare June with last year and stop the "
            "campaign if revenue per install falls below 80% of April's. Respect store pricing rules and users' "
            "consent for promotional messages."
        ),
    )
    run = write_run(tmp_path / "judged.run", suite, {question.id: answer})
    done = cli("score", run, "--scorer", "corgi", "--judge-model", "local", timeout=3600)
    assert done.returncode == 0, done.stderr
    assert "1 results now (0 failed)" in done.stderr, done.stderr
    with RunStore(run) as store:
        scores = {s.name: s for s in store.scores() if s.scorer == "corgi"}
        (record,) = [r for r in store.results(question.id) if r.scorer == "corgi"]
    assert record.failed is None and record.model and record.model.startswith("local")
    final = scores["corgi"]
    assert final.value is not None and 0 <= final.value <= 5
    assert scores["corgi.ser"].value == 0.5
    for name in ("corgi.structure", "corgi.data_sense", "corgi.insightfulness"):
        assert 0 <= scores[name].value <= 5
    roles = [entry.role for entry in record.trace]
    assert roles[0] == "discriminator" and 4 <= len(roles) <= 7
    metrics = final.sub_scores["sub_metrics"]
    assert all(m["reason"] for m in metrics.values())
    with sqlite3.connect(run) as conn:
        assert json.loads(conn.execute("SELECT trace FROM results WHERE scorer = 'corgi'").fetchone()[0])[0]["reply"]
    trace = cli("show", run, "--trace", question.id)
    assert "call 1: discriminator" in trace.stdout
