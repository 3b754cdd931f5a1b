"""Campaigns: a plan's matrix as content-addressed units, shards (one killed part-way and run again) merged equal to
the serial campaign, a killed worker's task started again, a killed driver's processes gone with it, a server's
connection limit held across workers, and bad plans, shards and engines refused in one line."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biarena.campaign import Shard, parse_shard, run_campaign
from tests.campaign_helpers import DIE_MARK, canonical, make_campaign_plan, most_at_once
from tests.cli_in_process import cli
from tests.run_helpers import BIARENA, one_line_error

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    """The environment of a biarena process that can import this checkout's tests (the Python systems)."""
    paths = [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def _biarena(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIARENA), *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd, env=_env(), check=False
    )


def _run_rows(run: Path) -> tuple[int, int, int]:
    """Answers, results, and distinct (question, scorer) results of a run file."""
    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        answers = conn.execute("SELECT count(*) FROM answers").fetchone()[0]
        results = conn.execute("SELECT count(*) FROM results").fetchone()[0]
        distinct = conn.execute("SELECT count(DISTINCT question_id || '|' || scorer) FROM results").fetchone()[0]
    return answers, results, distinct


def test_shards_one_killed_and_run_again_merge_into_the_serial_campaign(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path)
    serial = _biarena("campaign", plan, "-o", "serial", cwd=tmp_path)
    assert serial.returncode == 0, serial.stderr
    assert "8 units" in serial.stderr and "[8/8 units]" in serial.stderr

    # shard 1 of 3 holds two of the four cells: kill it (its whole process group) once the first is written
    killed = subprocess.Popen(
        [str(BIARENA), "campaign", str(plan), "-o", "s1", "--shard", "1/3"],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    done = tmp_path / "s1" / "done"
    deadline = time.monotonic() + 120
    while killed.poll() is None and not (done.is_dir() and any(done.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(30)
    assert killed.returncode == -signal.SIGKILL
    marked = len(list(done.iterdir()))  # the kill may fall between a cell's two markers
    assert 0 < marked < 4 and not (tmp_path / "s1" / "results.csv").exists()  # part-way

    again = _biarena("campaign", plan, "-o", "s1", "--shard", "1/3", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"done: {4 - marked} units now, {marked} before, of 4 in this share (8 in the plan)" in again.stderr
    for share in ("2/3", "3/3"):
        result = _biarena("campaign", plan, "-o", f"s{share[0]}", "--shard", share, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    merged = cli("merge", tmp_path / "s1", tmp_path / "s2", tmp_path / "s3", "-o", tmp_path / "merged")
    assert merged.returncode == 0, merged.stderr
    assert "8 of 8 units done" in merged.stderr

    assert canonical(tmp_path / "merged") == canonical(tmp_path / "serial")
    lines = (tmp_path / "serial" / "results.csv").read_text().splitlines()
    # 4 runs x 6 questions: one execution_accuracy row, three execution rows (execution, ser, valid_sql) each
    assert len(lines) == 1 + 4 * 6 * 4
    for run in sorted((tmp_path / "merged" / "runs").glob("*.sqlite")):
        assert _run_rows(run) == (6, 12, 12)  # nothing lost, nothing twice
    # merging a shard again adds nothing
    twice = cli("merge", tmp_path / "s1", tmp_path / "s1", "-o", tmp_path / "merged")
    assert twice.returncode == 0, twice.stderr
    assert canonical(tmp_path / "merged") == canonical(tmp_path / "serial")


def test_a_campaign_run_again_or_grown_by_a_scorer_repeats_nothing(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=3)
    first = run_campaign(plan, tmp_path / "out", workers=2)
    assert (first.units, first.now, first.before) == (8, 8, 0)
    runs = sorted((tmp_path / "out" / "runs").glob("*.sqlite"))
    answered = {run: _answer_times(run) for run in runs}
    again = run_campaign(plan, tmp_path / "out")
    assert (again.now, again.before, again.cells_now) == (0, 8, 0)

    plan.write_text(
        plan.read_text().replace(
            "[execution_accuracy, execution]", "[execution_accuracy, execution, 'execution_accuracy[spider]']"
        )
    )
    grown = run_campaign(plan, tmp_path / "out")
    assert (grown.units, grown.now, grown.before) == (12, 4, 8)
    assert {run: _answer_times(run) for run in runs} == answered  # no question asked again
    rows = (tmp_path / "out" / "results.csv").read_text()
    assert sum(",execution_accuracy[spider]," in line for line in rows.splitlines()) == 4 * 3


def _answer_times(run: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(f"file:{run}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT question_id, created_at FROM answers ORDER BY question_id").fetchall()


def test_a_worker_killed_under_its_task_has_the_task_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = make_campaign_plan(tmp_path, questions=2, systems=("dies_once",))
    monkeypatch.setenv(DIE_MARK, str(tmp_path / "died"))
    summary = run_campaign(plan, tmp_path / "out", workers=2)
    assert (tmp_path / "died").exists()
    assert (summary.units, summary.now) == (4, 4)
    for run in (tmp_path / "out" / "runs").glob("*.sqlite"):
        assert _run_rows(run) == (2, 4, 4)


TREE_MARK = "BIARENA_TEST_TREE"
"""An environment variable every process of a test's campaign inherits: it finds them wherever they were reparented."""


def _marked(mark: str) -> set[int]:
    """Live processes (not zombies) whose environment holds TREE_MARK=mark."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):  # gone meanwhile, or another user's
            continue
        if f"{TREE_MARK}={mark}".encode() in environ and state not in ("Z", "X"):
            found.add(int(entry.name))
    return found


def _children(pid: int) -> set[int]:
    """The processes `pid` (any of its threads) started that are alive now."""
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:  # the thread or process ended meanwhile
            continue
    return children


def _descendants(pid: int) -> set[int]:
    """Every process below `pid` now."""
    found: set[int] = set()
    stack = [pid]
    while stack:
        below = _children(stack.pop()) - found
        found |= below
        stack.extend(below)
    return found


def _left_after(mark: str, seconds: float = 20) -> set[int]:
    """The marked processes still alive once they are all gone or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    while (left := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux's /proc")
def test_a_driver_killed_alone_takes_its_workers_forkserver_and_tracker_with_it(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=20)
    mark = f"{os.getpid()}-{tmp_path.name}"
    env = {**_env(), TREE_MARK: mark}
    command = [str(BIARENA), "campaign", str(plan), "-o", "out", "--workers", "2"]
    driver = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # the resource tracker and the forkserver are the driver's children, the two workers the forkserver's
        deadline = time.monotonic() + 120
        tree: set[int] = set()
        while driver.poll() is None and time.monotonic() < deadline:
            tree = _descendants(driver.pid)
            if len(tree - _children(driver.pid)) >= 2:
                break
            time.sleep(0.05)
        assert driver.poll() is None, "the campaign ended before its workers could be seen"
        assert len(tree - _children(driver.pid)) >= 2, tree
        assert tree <= _marked(mark), "the mark finds every process of the tree"
        driver.kill()  # the driver alone, as `kill -9 PID` does: not its process group
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait(30)
    left = _left_after(mark)
    for pid in left:  # no stray process outlives a failing test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after the driver's SIGKILL: {sorted(left)} of {sorted(tree)}"

    again = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "out" / "results.csv").is_file()
    assert not _left_after(mark)


def test_a_servers_connection_limit_holds_across_workers(tmp_path: Path) -> None:
    make_campaign_plan(tmp_path, questions=3)
    summary, requests, most = most_at_once(tmp_path, seeds="  seeds: [1, 2]\n", workers=3)
    assert summary.now == 4 and requests >= 12
    assert most == 1


def test_a_judge_scores_with_the_plans_judge_model(tmp_path: Path) -> None:
    make_campaign_plan(tmp_path, questions=2)
    plan = tmp_path / "judged.yaml"
    plan.write_text(
        "matrix: {benchmarks: [shop], systems: [gold], scorers: [bibench]}\n"
        "judge_model: {model: mock, options: {cache: false}}\n"
    )
    assert run_campaign(plan, tmp_path / "out").now == 1
    rows = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert sum(",bibench.answerability," in row for row in rows) == 2
    traced = cli("show", tmp_path / "out", "--trace", "q0000")
    assert traced.returncode == 0 and "model mock" in traced.stdout


def test_show_and_report_read_a_campaign_folder(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=2)
    plan.write_text(plan.read_text().replace("[shop, mart]", "[shop]"))
    run_campaign(plan, tmp_path / "out")
    shown = cli("show", tmp_path / "out", "--format", "csv")
    assert shown.returncode == 0, shown.stderr
    assert "right" in shown.stdout and "wrong" in shown.stdout
    written = cli("report", tmp_path / "out", "-o", tmp_path / "report.md")
    assert written.returncode == 0, written.stderr
    text = (tmp_path / "report.md").read_text()
    assert "right" in text and "wrong" in text


def test_a_campaign_over_two_benchmarks_gets_a_report_for_each(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=2)
    run_campaign(plan, tmp_path / "out")
    written = cli("report", tmp_path / "out", "-o", tmp_path / "report.md")
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in tmp_path.glob("report*.md")) == ["report-mart.md", "report-shop.md"]
    for name in ("mart", "shop"):
        assert f"Benchmark **{name}**" in (tmp_path / f"report-{name}.md").read_text()
    assert "(benchmark mart)" in written.stderr and "(benchmark shop)" in written.stderr
    runs = sorted((tmp_path / "out" / "runs").glob("*.sqlite"))
    mixed = cli("report", *runs, "-o", tmp_path / "mixed.md")  # loose run files of two benchmarks: refused
    assert mixed.returncode == 2 and "different benchmarks" in mixed.stderr


def test_shares_split_the_cells_and_follow_a_slurm_array() -> None:
    for count in range(1, 5):
        shards = [Shard(k, count) for k in range(1, count + 1)]
        assert all(sum(s.takes(position) for s in shards) == 1 for position in range(9))
    assert parse_shard("2/3") == Shard(2, 3)
    assert parse_shard(None, {}) == Shard(1, 1)
    assert parse_shard(None, {"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "3"}) == Shard(1, 3)
    slurm = {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}
    assert parse_shard(None, slurm) == Shard(3, 3)
    assert parse_shard("1/2", slurm) == Shard(1, 2)  # --shard wins


BAD_PLANS = {
    "matrix: {": "invalid YAML",
    "- a list": "a plan is a mapping",
    "matrix: {benchmarks: [shop]}": "matrix.systems: Field required",
    "matrix: {benchmarks: [], systems: [gold]}": "matrix.benchmarks",
    "matrix: {benchmarks: [shop], systems: [gold], colour: red}": "bad.yaml: matrix.colour: unknown key",
    "matrix: {benchmarks: [shop], sytems: [gold]}": "bad.yaml: matrix.sytems: unknown key; did you mean 'systems'?",
    "matrix: {benchmarks: [shop], systems: [gold]}\nlimt: 2": "bad.yaml: limt: unknown key; did you mean 'limit'?",
    "matrix: {benchmarks: [shop], systems: [gold]}\ncells: [{match: {agnt: gold}}]": "cells.0.match.agnt: unknown key;"
    " did you mean 'agent'?",
    "matrix: {benchmarks: [shop], systems: [gold, seqential]}": "bad.yaml: matrix.systems.1.agent: unknown agent "
    "'seqential'; did you mean 'sequential'?",
    "matrix: {benchmarks: [shop], systems: [{agent: gold, options: {nope: 1}}]}": "bad.yaml: matrix.systems.0.options: "
    "agent 'gold' does not take option 'nope'",
    "matrix: {benchmarks: [shop], systems: [gold], scorers: [exactness]}": "bad.yaml: matrix.scorers.0.name: unknown "
    "scorer 'exactness'",
    "matrix: {benchmarks: [shop], systems: [text2sql]}": "list one under matrix.models",
    "matrix: {benchmarks: [nowhere], systems: [gold]}": "nowhere",
    "matrix: {benchmarks: [shop], systems: [gold]}\ncells: [{limit: 0}]": "cells.0.limit",
    "matrix: {benchmarks: [shop], systems: [gold], scorers: [bibench]}": "calls a model: name it with judge_model",
}


@pytest.mark.parametrize("text", list(BAD_PLANS))
def test_a_bad_plan_is_one_line(tmp_path: Path, text: str) -> None:
    make_campaign_plan(tmp_path, questions=1)
    plan = tmp_path / "bad.yaml"
    plan.write_text(text)
    one_line_error(cli("campaign", plan, "-o", tmp_path / "out"), BAD_PLANS[text])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "environ", "fragment"),
    [
        (["--shard", "4/3"], {}, "K must be between 1 and N"),
        (["--shard", "0/3"], {}, "K must be between 1 and N"),
        (["--shard", "one/3"], {}, "give K/N"),
        (["--shard", "3"], {}, "give K/N"),
        ([], {"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "3"}, "not one of the 3 tasks"),
        ([], {"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "3"}, "whole numbers"),
        (["--engine", "spark"], {}, "unknown engine 'spark'"),
        (["--engine", "rey"], {}, "unknown engine 'rey'; did you mean 'ray'?"),
        (["--address", "h:6379"], {}, "give --engine ray"),
    ],
)
def test_a_bad_shard_or_engine_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], environ: dict[str, str], fragment: str
) -> None:
    plan = make_campaign_plan(tmp_path, questions=1)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    one_line_error(cli("campaign", plan, "-o", tmp_path / "out", *args), fragment)


def test_the_ray_engine_without_ray_is_one_line(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=1)
    shadow = tmp_path / "no_ray" / "ray"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(shadow.parent), env["PYTHONPATH"]])
    result = subprocess.run(
        [sys.executable, "-m", "biarena", "campaign", str(plan), "-o", "out", "--engine", "ray"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    one_line_error(result, "pip install 'biarena[ray]'")
    assert not (tmp_path / "out").exists()


def test_a_run_file_merged_joins_the_campaigns_runs(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=2)
    plan.write_text(plan.read_text().replace("[shop, mart]", "[shop]"))
    run_campaign(plan, tmp_path / "out")
    made = cli("run", tmp_path / "shop", "--agent", "gold", "-o", tmp_path / "gold.run")
    assert made.returncode == 0, made.stderr
    merged = cli("merge", tmp_path / "out", tmp_path / "gold.run", "-o", tmp_path / "merged")
    assert merged.returncode == 0, merged.stderr
    assert (tmp_path / "merged" / "runs" / "gold.sqlite").is_file()
    assert (tmp_path / "merged" / "results.csv").read_bytes() == (tmp_path / "out" / "results.csv").read_bytes()
    shown = cli("show", tmp_path / "merged", "--format", "csv")
    assert shown.returncode == 0 and "gold" in shown.stdout and "right" in shown.stdout


def test_merge_refuses_what_is_not_a_campaign(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    one_line_error(cli("merge", tmp_path / "empty", "-o", tmp_path / "m"), "not a campaign folder")
    one_line_error(cli("merge", tmp_path / "missing", "-o", tmp_path / "m"), "campaign folder not found")
    (tmp_path / "newer").mkdir()
    (tmp_path / "newer" / "campaign.json").write_text('{"format": 9, "units": []}')
    one_line_error(cli("merge", tmp_path / "newer", "-o", tmp_path / "m"), "made by a newer biarena")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "campaign.json").write_text("{")
    one_line_error(cli("merge", tmp_path / "broken", "-o", tmp_path / "m"), "not a campaign file")
    (tmp_path / "notes.txt").write_text("hello")
    one_line_error(cli("merge", tmp_path / "notes.txt", "-o", tmp_path / "m"), "not a biarena run file")
