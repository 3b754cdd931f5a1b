"""The report's statistics: intervals by category, type and language, judges with their check, arena votes, tests;
in HTML, Markdown and CSV."""

import csv
import io
import json
import random
import re
from pathlib import Path

import pytest

from biarena.records import Benchmark, DatabaseRef, Question, Score
from biarena.report import read_runs
from biarena.report.analysis import analyse
from biarena.runner import RunStore
from biarena.stats import fit_bradley_terry, mean_interval
from biarena.votes.settings import LeaderboardSettings
from biarena.votes.vote import Vote
from biarena.votes.vote_file import VoteFile
from tests.conftest import make_sales_db
from tests.run_helpers import cli, one_line_error, write_predictions

DIMENSIONS = ["structure", "data_sense", "insightfulness"]
VOTES = [("alpha", "beta", "a")] * 7 + [("alpha", "beta", "b")] * 3 + [("beta", "alpha", "tie")] * 2


def vote_file(outcomes: list[tuple[str, str, str]], bootstrap: int = 1000) -> VoteFile:
    """Stored votes as an arena database gives them, one per `(left, right, winner)`, without run ids."""
    choice = {"a": "left", "b": "right"}
    votes = [
        Vote(i, "ann", "b", f"q{i}", left, right, choice.get(winner, winner), "", "2026-01-01T00:00:00")
        for i, (left, right, winner) in enumerate(outcomes, start=1)
    ]
    return VoteFile(votes, LeaderboardSettings(bootstrap=bootstrap))


def _questions() -> list[Question]:
    questions = []
    for i in range(18):
        kind = 2 + i % 3
        questions.append(
            Question(
                id=f"q{i:02d}",
                text=f"why did sales change in city {i}?",
                language="zh" if i % 4 == 0 else "en",
                database="sales",
                gold_sql=[f"SELECT city_id, sum(amount) FROM sales WHERE qty > {i % 4} GROUP BY city_id"],
                labels=[f"corgi:type{kind}", "corgi:planted"],
            )
        )
    return questions


def _judge_scores(question_id: str, base: float, judge: str, rng: random.Random) -> list[Score]:
    dims = {d: min(5.0, max(0.0, round(base + rng.uniform(-1, 1)))) for d in DIMENSIONS}
    headline = sum(dims.values()) / len(dims)
    scores = [
        Score(
            question_id=question_id,
            name=judge,
            scorer=judge,
            scorer_version="1",
            value=headline,
            sub_scores={"dimensions_on_scale": dims},
            rationale=f"{judge} read the answer",
        )
    ]
    scores += [
        Score(question_id=question_id, name=f"{judge}.{d}", scorer=judge, scorer_version="1", value=v)
        for d, v in dims.items()
    ]
    return scores


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two scored runs of an 18-question CORGI-typed benchmark, judged by two judges, with a judge check file."""
    from biarena.benchmarks import save_benchmark

    root = tmp_path_factory.mktemp("judged")
    database = make_sales_db(root / "sales.sqlite")
    questions = _questions()
    bench = save_benchmark(
        Benchmark(name="typed", databases={"sales": DatabaseRef(path=str(database))}, questions=questions),
        root / "bench",
    )
    paths: dict[str, Path] = {"bench": bench}
    for name, wrong in (("alpha", {1, 7}), ("beta", {1, 2, 4, 5, 7, 8, 10, 11, 13})):
        rows = [
            {"question_id": q.id, "sql": "SELECT nope FROM sales" if i in wrong else q.gold_sql[0]}
            for i, q in enumerate(questions)
        ]
        predictions = write_predictions(root / f"{name}.jsonl", rows)
        run = root / f"{name}.run"
        result = cli(
            "run",
            bench,
            "--system",
            "predictions",
            "--predictions",
            predictions,
            "--partial",
            "--label",
            name,
            "-o",
            run,
        )
        assert result.returncode == 0, result.stderr
        assert cli("score", run).returncode == 0
        rng = random.Random(name)
        with RunStore(run) as store:
            for i, q in enumerate(questions):
                base = 4.0 - 0.8 * (i % 3) - (1.0 if name == "beta" else 0.0)
                store.put_scores(
                    _judge_scores(q.id, base, "corgi", rng) + _judge_scores(q.id, base - 0.5, "corgi-single", rng)
                )
        paths[name] = run
    check = {
        "corgi": {
            "swapped_cause": {"rate": 0.9, "low": 0.74, "high": 0.97, "n": 30, "ties": 1},
            "numbers_changed": {"rate": 0.7, "low": 0.52, "high": 0.83, "n": 30},
            "note": "not a figure",
        },
        "reference": {"vague": 0.55},
    }
    paths["check"] = root / "check.json"
    paths["check"].write_text(json.dumps(check), encoding="utf-8")
    return paths


def test_tables_carry_bootstrap_intervals_by_category_type_and_language(judged: dict[str, Path]) -> None:
    runs = read_runs([judged["alpha"], judged["beta"]])
    analysis = analyse(runs)
    # The first label is the CORGI type: one table by question type stands for the one by category.
    assert [s.key for s in analysis.sections] == ["type", "language", "overall"]
    assert analysis.names == ["ser", "execution_accuracy", "semantic_similarity", "result_f1", "corgi", "corgi-single"]
    overall = dict(analysis.section("overall").runs)
    alpha = overall["alpha"][0].scores["ser"]
    # alpha's SQL fails on 2 of 18 questions: its SER is 16/18, the interval that of the 0/1 values' mean.
    assert alpha.estimate == pytest.approx(16 / 18) and alpha.n == 18
    reference = mean_interval([0.0] * 2 + [1.0] * 16, resamples=2000)
    assert (alpha.low, alpha.high) == (pytest.approx(reference.low), pytest.approx(reference.high))
    languages = {row.group: row for row in dict(analysis.section("language").runs)["alpha"]}
    assert set(languages) == {"en", "zh"} and languages["zh"].questions == 5
    types = dict(analysis.section("type").runs)["beta"]
    assert [row.group for row in types] == ["corgi:type2", "corgi:type3", "corgi:type4"]
    assert all(row.scores["corgi"].low <= row.scores["corgi"].estimate <= row.scores["corgi"].high for row in types)


def test_the_tests_compare_runs_types_and_judges(judged: dict[str, Path]) -> None:
    runs = read_runs([judged["alpha"], judged["beta"]])
    sig = analyse(runs).significance
    ser = next(row for row in sig.paired if row.score == "ser")
    assert (ser.first, ser.second) == ("alpha", "beta")
    assert ser.result.difference == pytest.approx(9 / 18 - 16 / 18) and ser.result.high < 0
    # Judge scores were made to fall from type 2 to type 4: the ANOVA finds it.
    corgi = next(row for row in sig.anova if row.run == "alpha" and row.score == "corgi")
    assert corgi.result.p < 0.01 and list(corgi.result.groups) == ["corgi:type2", "corgi:type3", "corgi:type4"]
    pair = next(row for row in sig.agreement if row.run == "alpha")
    assert (pair.first, pair.second) == ("corgi", "corgi-single") and pair.result.n == 18
    hotelling = [row for row in sig.hotelling if row.run == "alpha"]
    assert hotelling and hotelling[0].dimensions == DIMENSIONS and hotelling[0].result is not None


def test_html_report_has_every_chart_and_the_judge_check(judged: dict[str, Path], tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    result = cli("report", judged["alpha"], judged["beta"], "--judge-check", judged["check"], "-o", report)
    assert result.returncode == 0, result.stderr
    html = report.read_text(encoding="utf-8")
    titles = re.findall(r'<svg [^>]*aria-label="([^"]+)"', html)
    for expected in (
        "SER by question type",
        "EA by question type",
        "Res F1 by question type",
        "Mean corgi score by question type",
        "corgi dimensions per system",
        "corgi-single dimensions per system",
        "judge check: corgi",
        "judge check: reference",
    ):
        assert expected in titles, titles
    assert "swapped cause" in html and "[0.74, 0.97]" in html
    assert "Statistical tests" in html and "Hotelling" in html and "one-way ANOVA" in html
    assert 'class="ci"' in html
    assert "corgi 3." in html or "corgi 4." in html  # the judge's score beside each answer in the drill-down
    assert not re.search(r"<(script|link|img)[^>]*\b(src|href)=", html)


def test_markdown_and_csv_formats(judged: dict[str, Path], tmp_path: Path) -> None:
    md = tmp_path / "report.md"
    assert cli("report", judged["alpha"], judged["beta"], "-o", md).returncode == 0
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# biarena report")
    assert "## By question type" in text and "## By language" in text and "## Overall" in text
    assert re.search(r"\| all \| alpha \| 18 \| 0\.889 \[0\.\d\d, [01]\.\d\d\]", text), text
    assert "### Across question types (one-way ANOVA)" in text
    out = tmp_path / "figures.txt"
    result = cli("report", judged["alpha"], "--format", "csv", "--judge-check", judged["check"], "-o", out)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    ser = next(r for r in rows if r["table"] == "overall" and r["score"] == "ser")
    assert float(ser["mean"]) == pytest.approx(16 / 18) and float(ser["low"]) < float(ser["mean"]) < float(ser["high"])
    assert {r["group"] for r in rows if r["table"] == "language"} == {"en", "zh"}
    check = next(r for r in rows if r["table"] == "judge_check" and r["group"] == "swapped_cause")
    assert (check["mean"], check["low"], check["n"]) == ("0.9", "0.74", "30")
    assert {r["group"] for r in rows if r["table"] == "judge_dimensions"} == {"corgi", "corgi-single"}


def test_arena_votes_make_the_leaderboard(judged: dict[str, Path], tmp_path: Path, monkeypatch) -> None:
    arena = tmp_path / "arena.sqlite"
    arena.write_bytes(b"")
    seen = []

    def fake_load(path: Path) -> VoteFile:
        seen.append(path)
        return vote_file(VOTES)

    from biarena.cli import report_cmd

    monkeypatch.setattr("biarena.votes.vote_file.load_votes", fake_load)
    report = tmp_path / "report.html"
    report_cmd.report(
        runs=[judged["alpha"], judged["beta"]],
        out=report,
        form=None,
        title="votes",
        labels=None,
        arena=arena,
        judge_check=[],
        judge_votes=[],
    )
    assert seen == [arena]
    html = report.read_text(encoding="utf-8")
    fit = fit_bradley_terry(VOTES, bootstrap=1000, seed=0)
    assert "<h1>votes</h1>" in html  # the title given, not a chart's
    assert "Leaderboard: arena votes" in html and "Bradley-Terry strength (log scale) with 95% intervals" in html
    row = re.search(r"<tr><td>1</td><td[^>]*>alpha.*?</tr>", html, flags=re.S).group(0)
    assert f"{fit.strength['alpha']:.2f}" in row and f"[{fit.low['alpha']:.2f}, {fit.high['alpha']:.2f}]" in row
    assert "<td>12</td>" in row  # votes
    assert "0.889" in row  # alpha's automatic SER beside its strength: the system matched its run's label
    assert '0.67 <span class="ci">(12)</span>' in html  # win rate of alpha over beta, ties half: (7 + 1) / 12
    md = tmp_path / "report.md"
    report_cmd.report(
        runs=[judged["alpha"], judged["beta"]],
        out=md,
        form=None,
        title="votes",
        labels=None,
        arena=arena,
        judge_check=[],
        judge_votes=[],
    )
    assert "## Leaderboard: arena votes" in md.read_text(encoding="utf-8")


def test_bad_inputs_are_one_line_errors(judged: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "check.json"
    bad.write_text("{not json", encoding="utf-8")
    one_line_error(cli("report", judged["alpha"], "--judge-check", bad, "-o", tmp_path / "r.html"), "not JSON")
    bad.write_text(json.dumps({"corgi": {"swapped": {"nothing": 1}}}), encoding="utf-8")
    one_line_error(cli("report", judged["alpha"], "--judge-check", bad, "-o", tmp_path / "r.html"), "no judge check")
    one_line_error(
        cli("report", judged["alpha"], "--arena", tmp_path / "missing.sqlite", "-o", tmp_path / "r.html"),
        "no such arena database",
    )
    assert not (tmp_path / "r.html").exists()


def test_report_reads_the_votes_of_an_arena_database(judged: dict[str, Path], tmp_path: Path) -> None:
    from biarena.arena.store import ArenaStore

    arena = tmp_path / "arena.sqlite"
    choices = ["left", "left", "right", "tie", "right", "both_bad"]
    with ArenaStore(arena) as store:
        for name in ("ann", "bob"):
            store.invite(name)
        for user in store.users():
            for i, choice in enumerate(choices):
                left, right = ("alpha", "beta") if i % 2 == 0 else ("beta", "alpha")
                comparison = store.new_comparison(user.id, "typed", f"q{i:02d}", left, right)
                store.record_vote(comparison.token, user.id, choice, "", daily_cap=100)
    report = tmp_path / "report.md"
    result = cli("report", judged["alpha"], judged["beta"], "--arena", arena, "-o", report)
    assert result.returncode == 0, result.stderr
    text = report.read_text(encoding="utf-8")
    # Per annotator: alpha wins q00 (left); beta wins q01 (left = beta), q02 and q04 (right); q03 is a tie and q05
    # both bad: alpha has 1 + 0.5 + 0.5 = 2 of 6, so beta ranks first.
    assert "from 12 votes; 4 ties or both bad" in text
    rows = re.findall(r"^\| (\d) \| (\w+) \| (-?\d\.\d\d) \| \[(-?\d\.\d\d), (-?\d\.\d\d)\] \| (\d+) \|$", text, re.M)
    assert [(rank, system, votes) for rank, system, *_, votes in rows] == [("1", "beta", "12"), ("2", "alpha", "12")]
    votes = [
        ("alpha", "beta", "a"),
        ("beta", "alpha", "a"),
        ("alpha", "beta", "b"),
        ("beta", "alpha", "tie"),
        ("alpha", "beta", "b"),
        ("beta", "alpha", "both_bad"),
    ]
    expected = fit_bradley_terry(
        votes * 2,
        bootstrap=1000,
    )
    assert float(rows[0][2]) == pytest.approx(expected.strength["beta"], abs=0.006)


def _check_report(judge: str, rates: dict[str, tuple[int, int]]) -> dict:
    """A file as `biarena judge check -o FILE` writes it: one judge, its degradations, overall, self-consistency."""

    def rate(successes: int, trials: int) -> dict:
        return {"successes": successes, "trials": trials, "rate": successes / trials, "low": 0.1, "high": 0.95}

    def figures(name: str, higher: int, pairs: int) -> dict:
        return {
            "degradation": name,
            "pairs": pairs,
            "higher": higher,
            "ties": 1,
            "lower": pairs - higher - 1,
            "failed": 0,
            "good_higher": rate(higher, pairs),
        }

    return {
        "judge": judge, "judge_version": "1", "model": "mock", "benchmark": "corgi-synth", "seed": 3,
        "temperature": 0.0, "rubric_hash": None, "questions": 10,
        "degradations": [figures(name, h, n) for name, (h, n) in rates.items()],
        "overall": figures("overall", sum(h for h, _ in rates.values()), sum(n for _, n in rates.values())),
        "consistency": {"answers": 10, "same": 9, "failed": 0, "agreement": rate(9, 10), "mean_abs_difference": 0.1},
        "judgements": 30, "model_calls": 30, "prompt_tokens": 9000, "completion_tokens": 900, "pairs": [],
    }  # fmt: skip


def test_judge_check_files_as_the_command_writes_them(judged: dict[str, Path], tmp_path: Path) -> None:
    first, second = tmp_path / "corgi-check.json", tmp_path / "single-check.json"
    first.write_text(json.dumps(_check_report("corgi", {"swapped_cause": (8, 10), "vague": (6, 10)})), "utf-8")
    second.write_text(json.dumps([_check_report("corgi-single", {"padded": (4, 10)})]), "utf-8")
    out = tmp_path / "figures.csv"
    result = cli("report", judged["alpha"], "--judge-check", first, "--judge-check", second, "-o", out)
    assert result.returncode == 0, result.stderr
    rows = [r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))) if r["table"] == "judge_check"]
    figures = {(r["run"], r["group"]): (float(r["mean"]), r["n"]) for r in rows}
    # Every degradation, overall and self-consistency; the counts and settings beside them are not figures.
    assert figures == {
        ("corgi", "swapped_cause"): (0.8, "10"),
        ("corgi", "vague"): (0.6, "10"),
        ("corgi", "overall"): (0.7, "20"),
        ("corgi", "self-consistency"): (0.9, "10"),
        ("corgi-single", "padded"): (0.4, "10"),
        ("corgi-single", "overall"): (0.4, "10"),
        ("corgi-single", "self-consistency"): (0.9, "10"),
    }


def test_a_pairwise_judges_verdicts_sit_beside_the_arena_with_their_agreement(
    judged: dict[str, Path], tmp_path: Path
) -> None:
    from biarena.arena.store import ArenaStore
    from biarena.votes.export import export_votes

    runs = {run.label: run.spec.run_id for run in read_runs([judged["alpha"], judged["beta"]])}
    arena = tmp_path / "arena.sqlite"
    human = ["left", "left", "right", "tie", "right", "both_bad"]
    with ArenaStore(arena) as store:
        store.invite("ann")
        for user in store.users():
            for i, choice in enumerate(human):
                left, right = ("alpha", "beta") if i % 2 == 0 else ("beta", "alpha")
                comparison = store.new_comparison(user.id, "typed", f"q{i:02d}", left, right)
                store.record_vote(comparison.token, user.id, choice, "", daily_cap=100)
        store.fill_run_ids(runs)
    # the judge saw the sides the other way round, agrees on q00-q03 and not on q04 and q05
    judge = ["right", "right", "left", "tie", "right", "right"]
    verdicts = [
        Vote(i + 1, "judge:pairwise:mock", "typed", f"q{i:02d}", right, left, choice, "", "", runs[right], runs[left])
        for i, choice in enumerate(judge)
        for left, right in [("alpha", "beta") if i % 2 == 0 else ("beta", "alpha")]
    ]
    votes_file = tmp_path / "judge.jsonl"
    votes_file.write_text("".join(export_votes(verdicts, "jsonl")), encoding="utf-8")

    # Outcomes as "alpha won" (1), "beta won" (0), tie (0.5): humans 1 0 0 .5 0 .5 (both bad is half to each side);
    # the judge 1 0 0 .5 1 0. Cohen's kappa by hand over the three categories: (4/6 - 13/36) / (1 - 13/36) = 11/23.
    first, second = [1, 0, 0, 0.5, 0, 0.5], [1, 0, 0, 0.5, 1, 0]
    if runs["alpha"] > runs["beta"]:  # the outcome is read from the side of the run with the smaller id
        first, second = [1 - x for x in first], [1 - x for x in second]
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / 6
    chance = sum(first.count(c) * second.count(c) for c in (0, 0.5, 1)) / 36
    expected = (observed - chance) / (1 - chance)

    report = tmp_path / "report.md"
    args = ["--arena", arena, "--judge-votes", votes_file]
    result = cli("report", judged["alpha"], judged["beta"], *args, "-o", report)
    assert result.returncode == 0, result.stderr
    text = report.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| judge:pairwise:mock | judge.jsonl |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2:6] == ["6", "6", "0.67", f"{expected:.2f}"], row
    assert re.fullmatch(r"\[-?\d\.\d\d, -?\d\.\d\d\]", cells[6]), row
    assert "### Ranking by judge:pairwise:mock" in text
    html = tmp_path / "report.html"
    assert cli("report", judged["alpha"], judged["beta"], *args, "-o", html).returncode == 0
    page = html.read_text(encoding="utf-8")
    assert "Pairwise judges" in page and f"<td>{expected:.2f}</td>" in page
    table = tmp_path / "report.csv"
    assert cli("report", judged["alpha"], judged["beta"], *args, "-o", table).returncode == 0
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    kappa = next(r for r in rows if r["table"] == "judge_human_agreement")
    assert float(kappa["mean"]) == pytest.approx(expected) and kappa["n"] == "6"
    assert {r["run"] for r in rows if r["table"] == "pairwise_judge"} == {"alpha", "beta"}
    # without human votes the judge's ranking is still shown, with no agreement
    alone = cli("report", judged["alpha"], judged["beta"], "--judge-votes", votes_file, "-o", tmp_path / "a.md")
    assert alone.returncode == 0, alone.stderr
    assert "| judge:pairwise:mock | judge.jsonl | 6 | 0 | - | - | - |" in (tmp_path / "a.md").read_text()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n", encoding="utf-8")
    one_line_error(cli("report", judged["alpha"], "--judge-votes", bad, "-o", tmp_path / "b.md"), "not a vote record")
