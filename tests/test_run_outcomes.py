"""`biarena run` says what happened to each question, exits 1 when nothing succeeded, retries errors,
grows a run, says why it refuses one, starts it over with --force, and labels it."""

import json
import sys
from pathlib import Path

import pytest

from tests.run_helpers import answers_of, cli, make_shop, one_line_error, spec_of, write_predictions


@pytest.fixture
def shop(tmp_path: Path, sales_db: Path) -> Path:
    return make_shop(tmp_path, sales_db)


def test_progress_line_names_each_outcome(tmp_path: Path, shop: Path) -> None:
    predictions = write_predictions(
        tmp_path / "pred.jsonl",
        [
            {"question_id": "q0000", "sql": "SELEC city_id FROM sales"},
            {"question_id": "q0001", "sql": "SELECT * FROM no_such_table"},
            {"question_id": "q0002", "sql": "DELETE FROM sales"},
            {"question_id": "q0003", "sql": "SELECT count(*) FROM sales"},
        ],
    )
    result = cli(
        "run", shop, "--system", "predictions", "--predictions", predictions, "--partial", "-o", tmp_path / "p.run"
    )
    assert result.returncode == 0, result.stderr
    lines = {line.split(":")[0].split()[-1]: line for line in result.stderr.splitlines() if line.startswith("  [")}
    assert "q0000: SQL failed: " in lines["q0000"] and "pars" in lines["q0000"]
    assert "q0001: SQL failed: " in lines["q0001"] and "no_such_table" in lines["q0001"]
    assert "q0002: SQL failed: " in lines["q0002"]
    assert lines["q0003"].endswith("q0003: ran")
    assert "q0004: no answer: no prediction for this question" in lines["q0004"]
    assert "4 of 6 questions answered (1 ran, 3 SQL failed), 2 no prediction;" in result.stderr
    assert "most common errors:" in result.stderr and "2 × no prediction for this question" in result.stderr
    assert " ok" not in result.stderr


def _flaky_command(tmp_path: Path, failing: set[str]) -> tuple[str, Path]:
    """A command system that fails for `failing` until a flag file exists, logging every question it is asked."""
    log, flag = tmp_path / "asked.log", tmp_path / "healthy.flag"
    script = tmp_path / "flaky.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "p = json.load(sys.stdin)\n"
        f"pathlib.Path({str(log)!r}).open('a').write(p['question_id'] + '\\n')\n"
        f"if p['question_id'] in {sorted(failing)!r} and not pathlib.Path({str(flag)!r}).exists():\n"
        "    sys.exit('backend down')\n"
        "print(json.dumps({'sql': 'SELECT count(*) FROM sales', 'answer': 400}))\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}", log


@pytest.mark.parametrize("case", ["no gold", "no prediction matches", "no databases", "command fails"])
def test_a_run_where_nothing_succeeded_exits_one(tmp_path: Path, sales_db: Path, case: str) -> None:
    run = tmp_path / "r.run"
    if case == "no gold":
        args = [make_shop(tmp_path, sales_db, gold=False), "--system", "gold"]
        expected = "6 × the question has no gold SQL"
    elif case == "no prediction matches":
        predictions = write_predictions(tmp_path / "p.jsonl", [{"question_id": "other", "sql": "SELECT 1"}])
        args = [make_shop(tmp_path, sales_db), "--system", "predictions", "--predictions", predictions, "--partial"]
        expected = "6 × no prediction for this question"
    elif case == "no databases":
        bench = tmp_path / "nodb"
        bench.mkdir()
        (bench / "benchmark.yaml").write_text("name: nodb\n", encoding="utf-8")
        question = {"id": "a", "text": "how many?", "database": "sales", "gold_sql": ["SELECT 1"]}
        (bench / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
        args = [bench, "--system", "gold"]
        expected = "1 × benchmark 'nodb' has no database 'sales'"
    else:
        command, _ = _flaky_command(tmp_path, {f"q{i:04d}" for i in range(6)})
        args = [make_shop(tmp_path, sales_db), "--system", "command", "--command", command]
        expected = "6 × exit code 1: backend down"
    result = cli("run", *args, "-o", run)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "no answer succeeded" in result.stderr
    assert expected in result.stderr
    if case == "no prediction matches":
        assert "none of the 1 predictions names a question" in result.stderr and "--partial" in result.stderr
    # the answers are stored all the same, and a resume says so
    again = cli("run", *args, "-o", run)
    assert again.returncode == 1 and "0 ran" in again.stderr and expected in again.stderr


def test_retry_errors_asks_again_only_the_questions_without_an_answer(tmp_path: Path, shop: Path) -> None:
    command, log = _flaky_command(tmp_path, {"q0001", "q0003", "q0004"})
    run = tmp_path / "flaky.run"
    args = ["run", shop, "--system", "command", "--command", command, "-o", run]
    first = cli(*args)
    assert first.returncode == 0 and "(3 ran, 0 SQL failed), 3 no answer" in first.stderr
    assert "--retry-errors" in first.stderr
    assert cli("score", run).returncode == 0
    resumed = cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert "3 no answer" in resumed.stderr and "3 × exit code 1: backend down" in resumed.stderr
    assert len(log.read_text().split()) == 6  # a plain resume asks nothing
    (tmp_path / "healthy.flag").touch()
    retried = cli(*args, "--retry-errors")
    assert retried.returncode == 0, retried.stderr
    assert sorted(log.read_text().split()[6:]) == ["q0001", "q0003", "q0004"]
    end = "6 of 6 questions answered (6 ran, 0 SQL failed), 0 no answer; 3 asked now (3 again), 3 before"
    assert end in retried.stderr
    assert all(a["status"] == "ok" for a in answers_of(run).values())
    # the replaced answers lost their old scores, so scoring finds exactly those three
    scored = cli("score", run)
    assert "3 answers scored now, 3 already scored" in scored.stderr


def test_a_run_grows_when_the_selection_widens(tmp_path: Path, shop: Path) -> None:
    run = tmp_path / "g.run"
    assert cli("run", shop, "--system", "gold", "--limit", "2", "-o", run).returncode == 0
    grown = cli("run", shop, "--system", "gold", "--limit", "4", "-o", run)
    assert grown.returncode == 0, grown.stderr
    assert "growing" in grown.stderr and "by 2 questions" in grown.stderr
    assert "2 asked now, 2 before" in grown.stderr
    assert spec_of(run)["question_ids"] == ["q0000", "q0001", "q0002", "q0003"]
    narrower = cli("run", shop, "--system", "gold", "--limit", "1", "-o", run)
    assert narrower.returncode == 0 and "0 asked now, 1 before" in narrower.stderr
    sample = cli("run", shop, "--system", "gold", "--per-category", "3", "-o", run)
    assert sample.returncode == 0, sample.stderr
    assert spec_of(run)["question_ids"] == [f"q{i:04d}" for i in range(6)]  # benchmark order kept
    exported = tmp_path / "g.jsonl"
    assert cli("export", run, "-o", exported).returncode == 0
    assert [json.loads(line)["question_id"] for line in exported.read_text().splitlines()] == [
        f"q{i:04d}" for i in range(6)
    ]


def test_a_refused_run_says_what_differs_and_force_starts_it_over(tmp_path: Path, shop: Path) -> None:
    predictions = write_predictions(tmp_path / "p.jsonl", [{"question_id": "q0000", "sql": "SELECT 1"}])
    run = tmp_path / "p.run"
    args = ["run", shop, "--system", "predictions", "--predictions", predictions, "--partial", "-o", run]
    assert cli(*args).returncode == 0
    write_predictions(predictions, [{"question_id": "q0000", "sql": "SELECT 2"}])
    line = one_line_error(cli(*args), "holds a different run")
    assert "option predictions_sha256 is" in line and "--force" in line
    other = one_line_error(cli("run", shop, "--system", "gold", "-o", run))
    assert "system is 'predictions' there, 'gold' here" in other
    started = cli(*args, "--force")
    assert started.returncode == 0, started.stderr
    assert "started over" in started.stderr
    assert answers_of(run)["q0000"]["final_sql"] == "SELECT 2"


def test_force_never_touches_a_file_that_is_not_a_run(tmp_path: Path, shop: Path, sales_db: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n", encoding="utf-8")
    for target in (sales_db, text):
        before = target.read_bytes()
        line = one_line_error(cli("run", shop, "--system", "gold", "--force", "-o", target), "not a biarena run file")
        assert "left as it is" in line
        assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("sales", "notes"))) == [
        "notes.txt",
        "sales.sqlite",
    ]


def test_label_is_stored_in_the_spec(tmp_path: Path, shop: Path) -> None:
    predictions = write_predictions(tmp_path / "pred.jsonl", [{"question_id": "q0000", "sql": "SELECT 1"}])
    default = tmp_path / "mine.run"
    made = cli("run", shop, "--system", "predictions", "--predictions", predictions, "--partial", "-o", default)
    assert made.returncode == 0
    assert spec_of(default)["label"] == "mine (predictions, pred.jsonl)"
    named = tmp_path / "named.run"
    assert cli("run", shop, "--system", "gold", "--label", "gold [/x] check", "-o", named).returncode == 0
    assert spec_of(named)["label"] == "gold [/x] check"
    # a label does not change the work: a resume may rename the run, and keeps the name otherwise
    assert cli("run", shop, "--system", "gold", "-o", named).returncode == 0
    assert spec_of(named)["label"] == "gold [/x] check"
    assert cli("run", shop, "--system", "gold", "--label", "renamed", "-o", named).returncode == 0
    assert spec_of(named)["label"] == "renamed"
    one_line_error(cli("run", shop, "--system", "gold", "--label", " ", "-o", named), "--label")


def test_markup_in_names_and_ids_prints_literally(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=2, ids=["[/x]", "[bold]b[/bold]"], name="[red]shop")
    predictions = write_predictions(tmp_path / "p.jsonl", [{"question_id": "[/x]", "sql": "SELECT [/x] FROM sales"}])
    run = tmp_path / "[/x].run"
    result = cli("run", shop, "--system", "predictions", "--predictions", predictions, "--partial", "-o", run)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "  [1/2] [/x]: SQL failed: " in result.stderr
    assert "  [2/2] [bold]b[/bold]: no answer: no prediction for this question" in result.stderr
    assert "on [red]shop (2 questions) into " in result.stderr and "[/x].run" in result.stderr
