"""`biarena judge check`: degradations, pairs, the figures and their intervals, self-consistency, the command."""

import json
import random
import re
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.judges import Judgement, JudgeScorer, ScorerContext
from biarena.judges.check import build_pairs, check_judge, wilson
from biarena.judges.degrade import (
    DEGRADATIONS,
    cause_swapped,
    contradicted,
    good_answer,
    numbers_changed,
    padded,
    reference_parts,
    vague_recommendation,
)
from biarena.metrics import ScoringContext
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring import SCORERS, ScoreInfo, get_scorer
from tests.cli_in_process import cli as cli_in_process
from tests.judge_helpers import prompt_of, reply, scripted
from tests.run_helpers import cli, require_embedded_model

PLANTED = (
    "Downtown orders fell by about half in September 2024 because the competitor QuickBite opened a hub on "
    "2024-09-01. Evidence (hidden parameters): planted event 'drop', rows of orders where zone = 'downtown' x0.45 "
    "from 2024-09-02 to 2024-09-29 against the weeks before; the cause is the market_event row with note = hub."
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small corgi-synth: one vertical at a twentieth of its size."""
    from biarena.generate.corgi_suite import build

    target = tmp_path_factory.mktemp("suite") / "corgi"
    build(target, verticals=["food_delivery"], scale=0.05, seed=0)
    return target


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"(?<![\w.,-])\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+", text)]


def test_good_answer_states_the_finding_and_the_data_not_the_hidden_names() -> None:
    good = good_answer(PLANTED)
    assert good.startswith("Downtown orders fell by about half in September 2024 because the competitor QuickBite")
    assert "0.45 times the level of the weeks before, from 2024-09-02 to 2024-09-29" in good
    assert "planted event" not in good and "hidden" not in good and "market_event" not in good
    claim, hidden = reference_parts("About 127 (tolerance ±10%). Trend times season.")
    assert claim == "About 127. Trend times season." and hidden is None


def test_numbers_change_by_30_to_50_percent_and_dates_stay() -> None:
    text = "About 4,106.25 a month: 1.25 times the usual level from 2024-09-02, around February 11-12 of 2024."
    for seed in range(20):
        worse = numbers_changed(text, random.Random(seed))
        assert worse is not None
        assert "2024-09-02" in worse and "February 11-12" in worse and "of 2024." in worse
        for old, new in zip(_numbers(text), _numbers(worse), strict=True):
            assert 0.3 - 1e-6 <= abs(new / old - 1) <= 0.5 + 1e-6, (old, new)
    assert numbers_changed("No figures on 2024-09-02.", random.Random(0)) is None


def test_cause_swap_contradiction_vagueness_and_padding() -> None:
    good = good_answer(PLANTED)
    rng = random.Random(0)
    swapped = cause_swapped(good, rng, ["the competitor QuickBite opened a hub on 2024-09-01", "a heat wave"])
    assert swapped is not None and "because a heat wave" in swapped and "QuickBite" not in swapped
    assert cause_swapped("Sales grew.", rng, ["a heat wave"]) is None
    assert cause_swapped(good, rng, ["the competitor QuickBite opened a hub on 2024-09-01"]) is None

    assert contradicted(good, rng).startswith("Downtown orders rose by about half")
    assert contradicted("On weekends: weekend activity runs higher.", rng) == (
        "On weekdays: weekend activity runs higher."
    )
    assert contradicted("Seasonality: January runs at 1.25 times.", rng) is None

    assert vague_recommendation("In August, the weakest month.", rng, recommendational=False) is None
    vague = vague_recommendation("In August, the weakest month.", rng, recommendational=True)
    assert vague is not None and "August" not in vague

    long = padded(good, rng)
    assert long.startswith(good) and len(long) >= 2 * len(good)


def test_pairs_spread_over_types_and_degradations(suite: Path) -> None:
    benchmark = load_benchmark(suite)
    from biarena.agents import AgentEnv

    env = AgentEnv(benchmark, DatabasePool(benchmark))
    pairs = build_pairs(benchmark.questions, get_scorer("reference"), env, 12, seed=3)
    assert len(pairs) == 12
    assert {p.degradation for p in pairs} == set(DEGRADATIONS)
    assert {label for p in pairs for label in p.question.labels if label.startswith("corgi:type")} == {
        "corgi:type2",
        "corgi:type3",
        "corgi:type4",
    }
    for pair in pairs:
        assert pair.good.text != pair.degraded.text
        assert pair.good.steps == pair.degraded.steps and pair.good.plan == pair.degraded.plan
        assert pair.good.steps and all(step.ok for step in pair.good.steps)
        assert pair.degradation != "vague_recommendation" or "corgi:type4" in pair.question.labels
    again = build_pairs(benchmark.questions, get_scorer("reference"), env, 12, seed=3)
    assert [(p.question.id, p.degraded.text) for p in again] == [(p.question.id, p.degraded.text) for p in pairs]


def test_wilson_interval() -> None:
    rate = wilson(8, 10)
    assert rate.rate == 0.8
    assert rate.low == pytest.approx(0.4902, abs=1e-4) and rate.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0).rate is None


class TruthOptions(Options):
    mode: str = "knows"
    """How the fake judge errs: knows, fails, constant or seeded."""


class TruthJudge(JudgeScorer):
    """A fake judge that knows the good answer: 1 for it, 0 for anything else; `mode` makes it worse."""

    name = "truth"
    version = "1"
    infos = (ScoreInfo("truth", "truth", "1 for the good answer", headline=True, kind="judge"),)
    needs_model = False
    default_rubric = None

    Options = TruthOptions
    options: TruthOptions

    def applies(self, question: Question) -> bool:
        return True

    def judge(self, question: Question, answer: Answer, context: ScorerContext) -> Judgement:
        if self.options.mode == "fails":
            return Judgement({"truth": None}, failed="no reply")
        if self.options.mode == "constant":
            return Judgement({"truth": 3.0})
        if self.options.mode == "seeded":
            return Judgement({"truth": float(context.seed % 7)})
        good = answer.text == good_answer(question.reference_answer or "")
        return Judgement({"truth": 1.0 if good else 0.0})


def _check(suite: Path, judge, count: int = 10, **kwargs):
    benchmark = load_benchmark(suite)
    return check_judge(judge, ScoringContext(benchmark, DatabasePool(benchmark)), model=None, count=count, **kwargs)


def test_a_judge_that_knows_the_truth_wins_every_pair(suite: Path) -> None:
    report = _check(suite, TruthJudge())
    assert report.overall.pairs == 10 and report.overall.higher == 10
    assert report.overall.good_higher.rate == 1.0 and report.overall.good_higher.low > 0.6
    assert sum(f.pairs for f in report.degradations) == 10
    assert report.consistency.agreement.rate == 1.0 and report.consistency.mean_abs_difference == 0
    assert report.judgements == 10 + 2 * report.questions


def test_ties_failures_and_inconsistency_are_visible(suite: Path) -> None:
    report = _check(suite, TruthJudge(mode="constant"))
    assert report.overall.ties == 10 and report.overall.higher == 0
    assert report.overall.good_higher.rate == 0.0  # ties are not higher
    report = _check(suite, TruthJudge(mode="fails"))
    assert report.overall.failed == 10 and report.overall.good_higher.rate is None
    assert report.consistency.failed == report.questions
    report = _check(suite, TruthJudge(mode="seeded"), seed=2)
    # the second judgement of each good answer uses another seed: this judge never agrees with itself
    assert report.consistency.agreement.rate == 0.0
    assert report.consistency.mean_abs_difference == pytest.approx(abs(1002 % 7 - 2 % 7))


def test_reference_judge_with_a_scripted_model(suite: Path) -> None:
    def script(request) -> str:
        prompt = prompt_of(request)
        reference = prompt.split("Reference answer: ")[1].split("\n")[0]
        judged = prompt.split("Answer to judge: ")[1].split("\n")[0]
        same = judged.startswith(reference[:40])
        if "conclusion" in (request.schema or ""):
            return reply(rationale="compared", conclusion="Match" if same else "Not Match")
        return reply(rationale="compared", score=5 if same else 2)

    model, _ = scripted(script)
    benchmark = load_benchmark(suite)
    report = check_judge(
        get_scorer("reference"), ScoringContext(benchmark, DatabasePool(benchmark)), model=model, count=6, seed=1
    )
    assert report.overall.pairs == 6 and report.overall.failed == 0
    assert report.rubric_hash and report.model == "mock:scripted"
    assert {r.score for r in report.pairs} <= {"reference.match", "reference.score"}
    assert report.model_calls == report.judgements


def test_the_command_in_process_writes_the_figures(suite: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(SCORERS, "truth", TruthJudge)
    out = tmp_path / "check.json"
    result = cli_in_process("judge", "check", "--judge", "truth", "--benchmark", suite, "-n", "6", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "good scores higher" in result.stdout and "all" in result.stdout
    assert "self-consistency" in result.stdout and "same score" in result.stdout
    data = json.loads(out.read_text())
    assert data["judge"] == "truth" and data["overall"]["higher"] == 6 and len(data["pairs"]) == 6
    assert data["overall"]["good_higher"]["low"] is not None
    result = cli_in_process(
        "judge", "check", "--judge", "truth", "--benchmark", suite, "--judge-option", "mode=constant", "-n", "2"
    )
    assert result.returncode == 0 and " 2 " in result.stdout


def test_the_command_for_a_person(suite: Path, tmp_path: Path) -> None:
    result = cli("judge", "check", "--judge", "refrence", "--benchmark", suite)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown judge 'refrence'; did you mean 'reference'?")
    result = cli("judge", "check", "--judge", "reference", "--benchmark", suite, "--judge-option", "nope")
    assert result.returncode == 2 and "NAME=VALUE" in result.stderr and "Traceback" not in result.stderr
    # a model whose replies are never JSON: every judgement fails, and the figures say so
    out = tmp_path / "check.json"
    result = cli(
        "judge", "check", "--judge", "reference", "--judge-model", "mock", "--benchmark", suite, "-n", "2", "-o", out
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["overall"]["failed"] == 2 and data["overall"]["good_higher"]["rate"] is None
    assert "judged 1 of" in result.stderr and "failed pairs: 2" in result.stdout
    assert re.search(r"all\s*│\s*2\s*│\s*0\s*│\s*0\s*│\s*0\s*│\s*2\s*│\s*-", result.stdout), result.stdout


@pytest.mark.real_model
@pytest.mark.slow
def test_judge_check_with_the_local_model_completes(suite: Path, tmp_path: Path) -> None:
    require_embedded_model()
    out = tmp_path / "check.json"
    result = cli(
        "judge", "check", "--judge", "reference", "--judge-model", "local", "--benchmark", suite, "-n", "4", "-o", out,
        timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["overall"]["pairs"] == 4 and data["model"].startswith("local:")
    assert (
        data["overall"]["higher"] + data["overall"]["ties"] + data["overall"]["lower"] + data["overall"]["failed"] == 4
    )
