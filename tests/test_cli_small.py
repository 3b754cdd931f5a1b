"""The small commands: --version, audit with nothing to audit, build options and progress, suite's next step,
synth tables through a pipe, and the permissions of what build writes."""

import re
import shlex
from pathlib import Path

import pytest

from biarena import __version__
from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.records import Benchmark, DatabaseRef, Question
from tests.conftest import make_sales_db
from tests.test_cli_output import cli, ok, one_line_error


def test_version() -> None:
    assert ok(cli("--version")).stdout.strip() == f"biarena {__version__}"


def test_flags_take_no_value_in_help() -> None:
    for words in (["show"], ["audit"], ["load"], ["synth", "make"]):
        help_text = ok(cli(*words, "--help")).stdout
        flags = [line for line in help_text.splitlines() if re.search(r"--(usage|json|replace|no-verify)\b", line)]
        assert flags and all("<bool>" not in line for line in flags), help_text


def test_audit_without_gold_sql_says_there_is_nothing_to_audit(tmp_path: Path) -> None:
    database = make_sales_db(tmp_path / "sales.sqlite")
    questions = [Question(id=f"r{i}", text=f"why {i}?", database="sales", reference_answer="because") for i in range(3)]
    bench = save_benchmark(
        Benchmark(name="prose", databases={"sales": DatabaseRef(path=str(database))}, questions=questions),
        tmp_path / "prose",
    )
    result = ok(cli("audit", bench))
    assert "nothing to audit" in result.stderr and "none of the 3 questions" in result.stderr
    assert '"problems": 0' in ok(cli("audit", bench, "--json")).stdout


def test_build_refuses_what_does_not_fit(tmp_path: Path) -> None:
    one_line_error(cli("build", "bis-synth", "--scale", "2", "-o", tmp_path / "b"), "does not take option 'scale'")
    one_line_error(cli("build", "corgi-synth", "-O", "scale=0", "-o", tmp_path / "b"), "-O scale=0: must be greater")
    target = tmp_path / "a-file"
    target.write_text("keep me\n", encoding="utf-8")
    one_line_error(cli("build", "bis-synth", "-o", target), "it is a file")
    assert target.read_text(encoding="utf-8") == "keep me\n"
    one_line_error(cli("build", "bis-synht", "-o", tmp_path / "c"), "did you mean 'bis-synth'")


def test_build_writes_with_the_umask(tmp_path: Path) -> None:
    out = tmp_path / "bis"
    ok(cli("build", "bis-synth", "-o", out, umask=0o022))
    assert out.stat().st_mode & 0o777 == 0o755
    assert (out / "databases").stat().st_mode & 0o777 == 0o755
    for path in (out / "benchmark.yaml", out / "questions.jsonl", *(out / "databases").iterdir()):
        assert path.stat().st_mode & 0o777 == 0o644, path


@pytest.mark.slow
def test_build_corgi_synth_takes_a_scale_and_shows_progress(tmp_path: Path) -> None:
    out = tmp_path / "corgi"
    result = ok(cli("build", "corgi-synth", "--scale", "0.3", "-o", out))
    progress = [line for line in result.stderr.splitlines() if re.match(r"\s+\[\d+/10\] \w+: ", line)]
    assert sum("generating its database (scale 0.3)" in line for line in progress) == 10
    assert sum(": done: " in line for line in progress) == 10
    assert len(load_benchmark(out).databases) == 10


def test_suite_suggests_a_next_step_that_needs_no_model(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    result = ok(cli("suite", "corgi", "--verticals", "app_store", "--scale", "0.2", "-o", out))
    assert re.search(r"\[1/1\] app_store: done: [\d,]+ rows, \d+ questions", result.stderr)
    line = next(line for line in result.stderr.splitlines() if line.startswith("next: "))
    steps = [shlex.split(step) for step in line.removeprefix("next: ").split(" && ")]
    assert [step[:2] for step in steps] == [["biarena", "run"], ["biarena", "score"], ["biarena", "show"]]
    for step in steps:
        finished = cli(*step[1:])
        assert finished.returncode == 0, (step, finished.stderr)
    assert "answered" in finished.stdout


def test_synth_tables_keep_names_whole_through_a_pipe(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    ok(cli("synth", "app_store", "--scale", "0.1", "--no-verify", "-o", path))
    result = cli("synth", "verify", path, columns=60)
    assert result.returncode in (0, 1), result.stderr
    names = re.findall(r"^│ (?:foreign key|segment share|season|rule|planted event)\s+│ (\S+)", result.stdout, re.M)
    assert names and "…" not in result.stdout
    assert "app.developer_id -> developer.developer_id" in result.stdout
    listing = ok(cli("synth", "list", columns=40)).stdout
    assert "luxury_consignment" in listing and "ecommerce_enablement" in listing and "…" not in listing
