"""`biarena judge check`: degradations, pairs, the figures and their intervals, self-consistency, the command."""

import json
import random
import re
from pathlib import Path

import pytest
import yaml

from biarena.benchmarks import load_benchmark
from biarena.db import DatabasePool
from biarena.judges import Judgement, JudgeScorer, ScorerContext
from biarena.judges.analyst import reference_parts
from biarena.judges.baselines import BASELINES, overlap
from biarena.judges.check import check_judge
from biarena.judges.check_figures import wilson
from biarena.judges.check_pairs import build_pairs
from biarena.judges.degrade import DEGRADATIONS, numbers_changed
from biarena.judges.rubric import load_builtin_rubric
from biarena.metrics import ScoringContext
from biarena.options import Options
from biarena.records import Answer, Question
from biarena.scoring import SCORERS, ScoreInfo, get_scorer
from tests.cli_in_process import cli as cli_in_process
from tests.judge_helpers import prompt_of, reply, scripted
from tests.run_helpers import cli, require_embedded_model


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small corgi-synth: one vertical at a twentieth of its size."""
    from biarena.generate.corgi_suite import build

    target = tmp_path_factory.mktemp("suite") / "corgi"
    build(target, verticals=["food_delivery"], scale=0.05, seed=0)
    return target


def _pairs(suite: Path, count: int, seed: int):
    from biarena.agents import AgentEnv

    benchmark = load_benchmark(suite)
    return build_pairs(
        benchmark.questions, get_scorer("reference"), AgentEnv(benchmark, DatabasePool(benchmark)), count, seed
    )


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"(?<![\w.,-])\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+", text)]


def test_reference_parts_leave_the_hidden_evidence_and_tolerance_out() -> None:
    claim, hidden = reference_parts("About 127 (tolerance ±10%). Trend times season.")
    assert claim == "About 127. Trend times season." and hidden is None
    claim, hidden = reference_parts("Orders fell. Evidence (hidden parameters): planted event 'x'.")
    assert claim == "Orders fell." and hidden == "planted event 'x'."


def test_numbers_change_by_30_to_50_percent_and_dates_stay() -> None:
    text = "About 4,106.25 a month: 1.25 times the usual level from 2024-09-02, around February 11-12 of 2024."
    for seed in range(20):
        worse = numbers_changed(text, random.Random(seed))
        assert worse is not None
        assert "2024-09-02" in worse and "February 11-12" in worse and "of 2024." in worse
        for old, new in zip(_numbers(text), _numbers(worse), strict=True):
            assert 0.3 - 1e-6 <= abs(new / old - 1) <= 0.5 + 1e-6, (old, new)
    assert numbers_changed("No figures on 2024-09-02.", random.Random(0)) is None


def test_day_ranges_times_ids_and_query_numbers_never_change() -> None:
    kept = (
        "November 24 to 28",
        "from 24 November",
        "Sept. 2-5",
        "at 10:30",
        "order id 4521",
        "(queries 2 and 3)",
        "(query 4)",
        "in 2024-11",
        "since 2023",
    )
    text = "Sales were 1,250 from November 24 to 28, from 24 November, Sept. 2-5, at 10:30, order id 4521 " + (
        "(queries 2 and 3), 310 rows (query 4) in 2024-11, up 12.5% since 2023."
    )
    for seed in range(50):
        worse = numbers_changed(text, random.Random(seed))
        assert worse is not None
        for part in kept:
            assert part in worse, (seed, part, worse)
        assert "1,250" not in worse and "12.5%" not in worse
        assert re.search(r"\b\d{1,3},\d{3}\b", worse) or re.search(r"\b\d{3}\b", worse)  # same format
        assert re.search(r"\d+\.\d%", worse)


def test_good_answers_read_as_an_analyst_writes_them(suite: Path) -> None:
    pairs = _pairs(suite, 14, seed=3)
    assert {p.degradation for p in pairs} == set(DEGRADATIONS)
    for pair in pairs:
        text = pair.good.text or ""
        assert 150 <= len(text.split()) <= 400, len(text.split())
        for part in ("Plan:", "Figures (from the queries):", "Conclusion:", "Recommendation:", "(query 1)"):
            assert part in text
        claim, _ = reference_parts(pair.question.reference_answer or "")
        assert claim in text and "hidden" not in text and "planted event" not in text
        results = {str(v) for step in pair.good.steps for row in step.preview for v in row}
        total = pair.good.steps[0].preview[0][0]
        assert f"{total:,} rows in all" in text and str(total) in results
        assert pair.good.steps and all(step.ok for step in pair.good.steps)
        if "corgi:type4" in pair.question.labels:
            assert "owns it" in text and "ten percent" in text and "four weeks" in text


def test_degraded_copies_keep_length_and_wording(suite: Path) -> None:
    for seed in (0, 1):
        for pair in _pairs(suite, 21, seed=seed):
            good, worse = pair.good.text or "", pair.degraded.text or ""
            assert abs(len(worse) - len(good)) <= 0.1 * len(good), pair.degradation
            good_words, worse_words = set(good.split()), set(worse.split())
            assert len(good_words & worse_words) >= 0.7 * len(good_words), pair.degradation
            assert pair.degradation != "vague_recommendation" or "corgi:type4" in pair.question.labels
            if pair.degradation == "results_swapped":
                assert good == worse and [s.sql for s in pair.good.steps] == [s.sql for s in pair.degraded.steps]
                assert [s.preview for s in pair.good.steps] != [s.preview for s in pair.degraded.steps]
            elif pair.degradation == "wrong_sql":
                assert [s.sql for s in pair.good.steps] != [s.sql for s in pair.degraded.steps]
                total = pair.degraded.steps[0].preview[0][0]
                assert f"{total:,} rows in all" in worse and total != pair.good.steps[0].preview[0][0]
            else:
                assert good != worse and pair.good.steps == pair.degraded.steps
            assert "November 24 to 28" not in good or "November 24 to 28" in worse


def test_length_and_reference_overlap_tell_nothing(suite: Path) -> None:
    """Over many seeds, neither the shorter answer nor the one with more reference words picks the good one more
    than 60% of the time on any degradation."""
    from biarena.judges.check import _baselines

    wins: dict[str, dict[str, list[bool]]] = {}
    for seed in range(6):
        for index, pair in enumerate(_pairs(suite, 28, seed=seed)):
            outcome = _baselines(pair, seed, index)
            for rule in ("shorter", "overlap"):
                wins.setdefault(pair.degradation, {}).setdefault(rule, []).append(outcome[rule] == "higher")
    assert set(wins) == set(DEGRADATIONS)
    for degradation, rules in wins.items():
        for rule, won in rules.items():
            assert len(won) >= 10 and sum(won) / len(won) <= 0.6, (degradation, rule, sum(won), len(won))


def test_baseline_rules() -> None:
    rng = random.Random(0)
    assert BASELINES["shorter"]("ab", "abc", "", rng) == "good"
    assert BASELINES["longer"]("ab", "abc", "", rng) == "degraded"
    assert BASELINES["overlap"]("sales fell", "sales rose", "Sales fell in May", rng) == "good"
    assert BASELINES["overlap"]("a b", "b a", "a b", rng) == "tie"
    assert overlap("销售下降", "销售") == 2
    draws = {BASELINES["random"]("x", "y", "", random.Random(seed)) for seed in range(20)}
    assert draws == {"good", "degraded"}


def test_pairs_spread_over_types_and_degradations(suite: Path) -> None:
    pairs = _pairs(suite, 14, seed=3)
    assert len(pairs) == 14
    assert {p.degradation for p in pairs} == set(DEGRADATIONS)
    assert {label for p in pairs for label in p.question.labels if label.startswith("corgi:type")} == {
        "corgi:type2",
        "corgi:type3",
        "corgi:type4",
    }
    again = _pairs(suite, 14, seed=3)
    assert [(p.question.id, p.degraded.text) for p in again] == [(p.question.id, p.degraded.text) for p in pairs]


def test_wilson_interval() -> None:
    rate = wilson(8, 10)
    assert rate.rate == 0.8
    assert rate.low == pytest.approx(0.4902, abs=1e-4) and rate.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0).rate is None


KNOWN: dict[str, list] = {}
"""The good answers of the pairs built so far: text -> the results under it."""


class TruthOptions(Options):
    mode: str = "knows"
    """How the fake judge errs: knows, fails, constant or seeded."""


class TruthJudge(JudgeScorer):
    """A fake judge that knows the good answers (`KNOWN`): 1 for them, 0 for anything else; `mode` makes it worse."""

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
        good = KNOWN.get(answer.text or "") == [s.preview for s in answer.steps]
        return Judgement({"truth": 1.0 if good else 0.0})


def _know(suite: Path, count: int, seed: int = 0) -> None:
    for pair in _pairs(suite, count, seed):
        KNOWN[pair.good.text or ""] = [s.preview for s in pair.good.steps]


def _check(suite: Path, judge, count: int = 10, **kwargs):
    _know(suite, count, kwargs.get("seed", 0))
    benchmark = load_benchmark(suite)
    return check_judge(judge, ScoringContext(benchmark, DatabasePool(benchmark)), model=None, count=count, **kwargs)


def test_a_judge_that_knows_the_truth_wins_every_pair(suite: Path) -> None:
    report = _check(suite, TruthJudge())
    assert report.overall.pairs == 10 and report.overall.higher == 10
    assert report.overall.good_higher.rate == 1.0 and report.overall.good_higher.low > 0.6
    assert sum(f.pairs for f in report.degradations) == 10
    assert report.consistency.agreement.rate == 1.0 and report.consistency.mean_abs_difference == 0
    assert report.judgements == 10 + 2 * report.questions
    # the trivial rules ran on the same pairs, and the judge's margin over the best of them is the headline
    assert set(report.overall.baselines) == set(BASELINES)
    assert all(r.baselines and set(r.baselines.values()) <= {"higher", "tie", "lower"} for r in report.pairs)
    best = max(rate.rate for rate in report.overall.baselines.values())
    assert report.margin.value == pytest.approx(1.0 - best) and report.margin.baseline in BASELINES
    assert report.margin.low is not None and report.margin.low <= report.margin.value <= report.margin.high
    assert all(f.margin is not None for f in report.degradations)


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
    _know(suite, 6)
    out = tmp_path / "check.json"
    result = cli_in_process("judge", "check", "--judge", "truth", "--benchmark", suite, "-n", "6", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "good scores higher" in result.stdout and "all" in result.stdout
    assert "self-consistency" in result.stdout and "same score" in result.stdout
    data = json.loads(out.read_text())
    assert data["judge"] == "truth" and data["overall"]["higher"] == 6 and len(data["pairs"]) == 6
    assert data["overall"]["good_higher"]["low"] is not None
    assert "margin over the best trivial rule" in result.stdout and "overlap" in result.stdout
    assert data["margin"]["baseline"] in BASELINES and data["margin"]["value"] is not None
    assert set(data["overall"]["baselines"]) == set(BASELINES)
    for pair in data["pairs"]:  # enough to run one's own rules on the same pairs
        assert pair["question"] and pair["reference"] and pair["good_text"] and pair["degraded_text"]
        assert pair["good_steps"][0]["sql"] and pair["good_steps"][0]["preview"] and pair["degraded_steps"]
        assert set(pair["baselines"]) == set(BASELINES)
    # the report reads the margins beside the judge's figures, and charts them on their own -1..1 scale
    from biarena.report.html_report import _check_chart
    from biarena.report.judge_check import read_judge_check

    figures = {f.check: f for f in read_judge_check(out)["truth"]}
    assert figures["margin"].rate == data["margin"]["value"] and figures["overall"].rate == 1.0
    assert any(name.endswith(" margin") and name != "margin" for name in figures)
    assert "margin over the best trivial rule" in _check_chart("truth", list(figures.values()))
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
@pytest.mark.extended
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


def test_faithfulness_beats_every_trivial_rule_where_the_data_decides(suite: Path) -> None:
    report = _check(suite, get_scorer("faithfulness"), count=28, seed=1)
    figures = {f.degradation: f for f in report.degradations}
    for name in ("numbers_changed", "contradicted", "results_swapped"):
        best = max(rate.rate for rate in figures[name].baselines.values())
        assert figures[name].good_higher.rate > best, (name, figures[name])
        assert figures[name].margin.value > 0


def test_reference_free_judges_see_the_results_under_the_prose(suite: Path) -> None:
    from biarena.judges.corgi import header
    from biarena.judges.rubric import corgi_rubric

    pair = next(p for p in _pairs(suite, 14, seed=3) if p.degradation == "results_swapped")
    rubric = corgi_rubric(load_builtin_rubric("corgi.yaml").data)
    good, worse = (
        header(rubric, "type2", pair.question, pair.good),
        header(rubric, "type2", pair.question, pair.degraded),
    )
    assert "The queries the answer ran, with their results:" in good and "Result 1:" in good
    assert pair.good.steps[0].sql in good and str(pair.good.steps[0].preview[0][0]) in good
    assert good != worse  # the same prose over other results reads differently to the judge


@pytest.mark.real_model
@pytest.mark.slow
def test_corgi_check_with_the_local_model_prints_the_baselines(suite: Path, tmp_path: Path) -> None:
    require_embedded_model()
    # The rubric's first dimension (and SER, which takes no model): one model call per answer instead of seven, so the
    # check runs the whole way with the embedded model in minutes; the full rubric is measured the same way by hand.
    rubric = load_builtin_rubric("corgi.yaml").data
    kept = ("Structure", "SQL Success Execution Rate")
    small = tmp_path / "structure.yaml"
    small.write_text(yaml.safe_dump({**rubric, "dimensions": [d for d in rubric["dimensions"] if d["name"] in kept]}))
    out = tmp_path / "check.json"
    result = cli(
        "judge", "check", "--judge", "corgi", "--judge-model", "local", "--rubric", small, "--benchmark", suite,
        "-n", "2", "-o", out, timeout=3600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "margin over the best trivial rule" in result.stdout
    for rule in BASELINES:
        assert rule in result.stdout
    data = json.loads(out.read_text())
    assert data["overall"]["pairs"] == 2 and set(data["overall"]["baselines"]) == set(BASELINES)


def test_insight_wins_where_only_causes_and_actions_change(suite: Path) -> None:
    report = _check(suite, get_scorer("insight"), count=40, seed=2)
    figures = {f.degradation: f for f in report.degradations}
    for name in ("cause_swapped", "vague_recommendation"):
        assert figures[name].pairs >= 3, figures
        assert figures[name].higher == figures[name].pairs, (name, figures[name])
        best = max(rate.rate for rate in figures[name].baselines.values())
        assert figures[name].good_higher.rate > best, (name, figures[name])
