"""`-O NAME=VALUE`, `--options FILE.yaml` and the old flags on `run` and `import`, and `biarena describe`."""

import json
import subprocess
from pathlib import Path

import pytest

from biarena.agents import SYSTEMS
from biarena.benchmarks import IMPORTERS, load_benchmark
from biarena.runner import RunStore
from tests.cli_in_process import cli
from tests.conftest import SALES_ROLES
from tests.run_helpers import make_shop

BIBENCH_ITEMS = [
    {
        "Query ID": i,
        "Natural Language Query": f"question {i}",
        "Category": "Diagnostic",
        "Table(s) Used": "sales, city",
        "Domain": "Retail",
        "Complexity": "Advanced",
    }
    for i in range(2)
]


def error_line(result: subprocess.CompletedProcess, fragment: str) -> str:
    """Assert exit code 2 with exactly one `error:` line holding `fragment`; return it."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def spec_options(run: Path) -> dict:
    with RunStore(run) as store:
        spec = store.spec()
    assert spec is not None
    return spec.options


@pytest.fixture
def shop(tmp_path: Path, sales_db: Path) -> Path:
    return make_shop(tmp_path, sales_db, count=3)


def test_describe_lists_each_kind_and_each_option_from_its_model() -> None:
    listing = cli("describe", "agent")
    assert listing.returncode == 0, listing.stderr
    assert all(name in listing.stdout for name in SYSTEMS)
    sequential = cli("describe", "agent", "sequential")
    assert sequential.returncode == 0
    rows = {line.split("│")[1].strip(): line for line in sequential.stdout.splitlines() if line.count("│") == 5}
    assert {"max_queries", "answer_words", "short_answer", "sample_rows", "max_tokens"} <= set(rows)
    cells = [cell.strip() for cell in rows["max_queries"].split("│")[1:5]]
    assert cells[:3] == ["max_queries", "int", "5"] and cells[3].startswith("Queries the agent may write")
    assert "-O NAME=VALUE" in sequential.stdout
    corgi = cli("describe", "importer", "corgi")
    assert "max_db_size" in corgi.stdout and "4GiB" in corgi.stdout and "DATETIME|auto" in corgi.stdout
    importers = cli("describe", "importer")
    assert all(name in importers.stdout for name in IMPORTERS)
    assert "It takes no options." in cli("describe", "agent", "gold").stdout
    assert "required" in cli("describe", "agent", "http").stdout
    assert "scale" in cli("describe", "benchmark", "corgi-synth").stdout
    assert "roles" in cli("describe", "question-method", "template").stdout


def test_describe_refuses_an_unknown_kind_or_name_with_a_suggestion() -> None:
    error_line(cli("describe", "agnet"), "nothing to describe as 'agnet'; did you mean 'agent'?")
    error_line(cli("describe", "agent", "sequental"), "unknown agent 'sequental'; did you mean 'sequential'?")
    error_line(cli("describe", "importer", "corgy"), "did you mean 'corgi'?")


def test_run_reads_agent_options_from_o_and_a_file_with_o_winning(shop: Path, tmp_path: Path) -> None:
    run = tmp_path / "seq.run"
    options = tmp_path / "seq.yaml"
    options.write_text("max_queries: 2\nshort_answer: true\nanswer_words: 30\n", encoding="utf-8")
    args = ["run", shop, "--agent", "sequential", "--model", "mock", "--no-cache", "-o", run]
    result = cli(*args, "--options", options, "-O", "answer_words=40", "-O", "sample-rows=1")
    assert result.returncode == 0, result.stderr
    chosen = spec_options(run)
    assert (chosen["max_queries"], chosen["short_answer"], chosen["answer_words"], chosen["sample_rows"]) == (
        2,
        True,
        40,
        1,
    )
    assert chosen["max_tokens"] == 450  # the plan's budget follows max_queries
    # the old flags name the same options: the same run, resumed, not a different one
    again = cli(*args, "--max-queries", "2", "--short-answer", "--answer-words", "40", "--sample-rows", "1")
    assert again.returncode == 0, again.stderr
    assert "3 of 3 questions already answered" in again.stderr
    other = cli(*args, "-O", "max_queries=3")
    error_line(other, "holds a different run")


def test_run_option_errors_are_one_line_before_any_question(shop: Path, tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    base = ["run", shop, "-o", run]
    error_line(cli(*base, "--agent", "gold", "-O", "max_queries=2"), "agent 'gold' does not take option 'max_queries'")
    error_line(
        cli(*base, "--agent", "sequential", "--model", "mock", "-O", "max_querys=2"),
        "agent 'sequential' does not take option 'max_querys'; did you mean 'max_queries'?",
    )
    error_line(
        cli(*base, "--agent", "sequential", "--model", "mock", "-O", "max_queries=two"),
        "agent 'sequential': -O max_queries=two: must be a valid integer",
    )
    error_line(
        cli(*base, "--agent", "iterative", "--model", "mock", "--step-limit", "0"),
        "agent 'iterative': -O step_limit=0: must be greater than or equal to 1",
    )
    error_line(cli(*base, "--agent", "http"), "agent 'http' needs -O url=VALUE")
    error_line(
        cli(*base, "--agent", "http", "-O", "url=http://127.0.0.1:9/", "-O", "max_queries=3"),
        "did you mean 'max_reply_queries'?",
    )
    error_line(cli(*base, "--agent", "gold", "--options", tmp_path / "none.yaml"), "options file not found")
    error_line(cli(*base, "--agent", "gold", "-O", "noequals"), "-O noequals: give NAME=VALUE")
    error_line(cli(*base, "--agent", "gold", "--system", "text2sql"), "--agent and --system name the same thing")
    error_line(cli(*base, "--agent", "gold", "--url"), "--url needs a value")
    assert not run.exists()


def test_the_old_agent_flags_and_system_still_work(shop: Path, tmp_path: Path) -> None:
    run = tmp_path / "gold.run"
    # a value that looks like an old flag stays the value of the option before it
    result = cli("run", shop, "--system", "gold", "--label", "--step-limit", "-o", run)
    assert result.returncode == 0, result.stderr
    with RunStore(run) as store:
        spec = store.spec()
    assert spec is not None and spec.label == "--step-limit" and spec.system == "gold"
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"question_id": "q0000", "sql": "SELECT 1"}) + "\n", encoding="utf-8")
    for spelling in (
        ["--predictions", predictions],
        [f"--predictions={predictions}"],
        ["-O", f"predictions={predictions}"],
    ):
        replayed = cli("run", shop, "--agent", "predictions", *spelling, "--partial", "-o", tmp_path / "p.run")
        assert replayed.returncode == 0, replayed.stderr
    assert spec_options(tmp_path / "p.run")["predictions"] == str(predictions.resolve())


def test_run_with_a_mock_model_agent_and_o(shop: Path, tmp_path: Path) -> None:
    run = tmp_path / "t.run"
    result = cli(
        "run", shop, "--agent", "text2sql", "--model", "mock", "-O", "retries=0", "-O", "max_tokens=100", "-o", run
    )
    assert result.returncode == 0, result.stderr
    assert spec_options(run) | {"model": None, "prompt_hash": None} == {
        "model": None,
        "prompt_hash": None,
        "max_tokens": 100,
        "sample_rows": 2,
        "retries": 0,
    }


def test_import_reads_importer_options_and_the_old_flags(tmp_path: Path, sales_db: Path) -> None:
    questions = tmp_path / "bibench.json"
    questions.write_text(json.dumps(BIBENCH_ITEMS), encoding="utf-8")
    new = cli(
        "import",
        "bibench",
        questions,
        "-O",
        f"databases=Retail={sales_db}",
        "-O",
        "now=2024-01-02",
        "-o",
        tmp_path / "a",
    )
    assert new.returncode == 0, new.stderr
    old = cli("import", "bibench", questions, "--db", f"Retail={sales_db}", "--now", "2024-01-02", "-o", tmp_path / "b")
    assert old.returncode == 0, old.stderr
    first, second = load_benchmark(tmp_path / "a"), load_benchmark(tmp_path / "b")
    assert first.databases.keys() == second.databases.keys() == {"retail"} and first.now == second.now
    error_line(
        cli("import", "bibench", questions, "-O", "database=Retail=x", "-o", tmp_path / "c"),
        "importer 'bibench' does not take option 'database'; did you mean 'databases'?",
    )
    error_line(
        cli("import", "bis", questions, "--verticals", "a", "-o", tmp_path / "c"), "does not take option 'verticals'"
    )
    error_line(cli("import", "dbqa", questions, "-o", tmp_path / "c"), "importer 'dbqa' needs -O databases=VALUE")
    assert not (tmp_path / "c").exists()


def test_generate_questions_reads_the_method_options(tmp_path: Path, sales_db: Path) -> None:
    roles = tmp_path / "roles.yaml"
    roles.write_text(SALES_ROLES, encoding="utf-8")
    options = tmp_path / "template.yaml"
    options.write_text(f"roles: {roles}\nper_category: 1\nlanguages: [en, zh]\n", encoding="utf-8")
    out = tmp_path / "templ"
    args = ["generate", "questions", sales_db, "--method", "template", "-o", out]
    result = cli(*args, "--options", options, "-O", "seed=3")
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "pipeline.json").read_text())["method"] == "template"
    assert {q.language for q in load_benchmark(out).questions} == {"en", "zh"}
    error_line(
        cli(*args, "-O", f"roles={roles}", "-O", "per_cell=2"),
        "method 'template' does not take option 'per_cell'",
    )
    error_line(cli(*args, "-O", f"roles={roles}", "-O", "languages=en,fr"), "-O languages[1]=fr: must be 'en' or 'zh'")


def test_describe_lists_the_scorers_with_what_each_is() -> None:
    from biarena.scoring import SCORERS

    listing = cli("describe", "scorer")
    assert listing.returncode == 0, listing.stderr
    assert all(name in listing.stdout for name in SCORERS)
    assert "Bag equality of rows" in listing.stdout  # execution_accuracy, from the class its lazy entry names
    one = cli("describe", "scorer", "execution_accuracy")
    assert one.returncode == 0 and "Bag equality of rows" in one.stdout
