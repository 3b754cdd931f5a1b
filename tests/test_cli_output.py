"""What `show` and `export` print, run through the installed entry point with output captured as a pipe."""

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from biarena.benchmarks import save_benchmark
from biarena.records import Benchmark, DatabaseRef, Question, Score
from biarena.runner import RunStore
from tests.conftest import make_sales_db

LONG_CATEGORY = "bis:a_category_name_long_enough_to_squeeze_a_table_of_eighty_columns"


def entry_point() -> Path:
    """The `biarena` console script installed beside this Python."""
    script = Path(sys.executable).parent / "biarena"
    if not script.exists():
        pytest.fail(f"the biarena entry point is not installed beside {sys.executable}")
    return script


def cli(*args: str | Path, umask: int | None = None, columns: int | None = None) -> subprocess.CompletedProcess:
    """`biarena ARGS` in a fresh process, stdout and stderr captured as pipes."""
    env = {**os.environ, "NO_COLOR": "1"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run(
        [str(entry_point()), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    """Assert a command succeeded and return it."""
    assert result.returncode == 0, result.stderr
    return result


def one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    """Assert a user error: exit 2, one line on stderr naming `fragment`, no traceback."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr
    assert "Traceback" not in result.stderr


QUESTIONS = [
    Question(
        id="q0",
        text="[/x] revenue by city",
        database="sales",
        labels=["bis:filtering"],
        gold_sql=["SELECT city_id, sum(amount) FROM sales GROUP BY city_id"],
    ),
    Question(
        id="q1",
        text="how many sales",
        database="sales",
        labels=["bis:filtering"],
        gold_sql=["SELECT count(*) FROM sales"],
    ),
    Question(
        id="q2",
        text="units sold",
        database="sales",
        labels=["bis:aggregation"],
        gold_sql=["SELECT sum(qty) FROM sales"],
    ),
    Question(
        id="q3",
        text="a broken gold",
        database="sales",
        labels=["bis:aggregation"],
        gold_sql=["SELECT nope FROM nowhere"],
    ),
    Question(
        id="q4",
        text="biggest sale",
        database="sales",
        language="zh",
        labels=[LONG_CATEGORY],
        gold_sql=["SELECT max(amount) FROM sales"],
    ),
    Question(
        id="q5",
        text="why did sales rise in spring?",
        database="sales",
        labels=["corgi:type2", "bis:[/x]odd"],
        reference_answer="The spring promotion doubled orders in Dublin.",
    ),
]
"""Six questions: right, SQL failed, wrong rows, gold that fails, no answer, no gold (reference answer only)."""

PREDICTIONS = [
    {"question_id": "q0", "sql": "SELECT city_id, sum(amount) FROM sales GROUP BY city_id"},
    {"question_id": "q1", "sql": "SELEC count(*) FROM sales"},
    {"question_id": "q2", "sql": "SELECT sum(qty) + 1 FROM sales"},
    {"question_id": "q3", "sql": "SELECT 1"},
]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A six-question benchmark with a predictions run, a gold run and a gold run of the first three, scored."""
    root = tmp_path_factory.mktemp("shop")
    database = make_sales_db(root / "sales.sqlite")
    bench = save_benchmark(
        Benchmark(name="shop", databases={"sales": DatabaseRef(path=str(database))}, questions=QUESTIONS),
        root / "bench",
    )
    predictions = root / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS), encoding="utf-8")
    paths = {"bench": bench, "pred": root / "pred.run", "gold": root / "gold.run", "first3": root / "first3.run"}
    ok(cli("run", bench, "--system", "predictions", "--predictions", predictions, "--partial", "-o", paths["pred"]))
    cli("run", bench, "--system", "gold", "-o", paths["gold"])
    cli("run", bench, "--system", "gold", "--limit", "3", "-o", paths["first3"])
    for name in ("pred", "gold", "first3"):
        assert paths[name].exists()
        ok(cli("score", paths[name]))
    return paths


def overall(payload: dict, index: int = 0) -> dict:
    """The overall row of one run in `show --format json`."""
    return payload["runs"][index]["overall"]


def test_an_unanswered_question_counts_zero_and_coverage_says_so(shop: dict[str, Path]) -> None:
    payload = json.loads(ok(cli("show", shop["pred"], "--format", "json")).stdout)
    row = overall(payload)
    assert row["questions"] == 6 and row["answered"] == 4 and row["coverage"] == pytest.approx(4 / 6)
    assert row["outcomes"] == {"ran": 3, "sql_failed": 1, "no_answer": 2, "unanswered": 0}
    # SER: q0, q2, q3 ran; q1 failed; q4 and q5 have no answer and count 0.
    assert row["scores"]["ser"] == pytest.approx(3 / 6) and row["counted"]["ser"] == 6
    # EA: a failing gold (q3) and no gold (q5) are left out; the unanswered q4 counts 0.
    assert row["scores"]["execution_accuracy"] == pytest.approx(1 / 4) and row["counted"]["execution_accuracy"] == 4
    table = ok(cli("show", shop["pred"])).stdout
    assert "4 of 6 answered (3 ran, 1 SQL failed), 2 no answer" in table
    assert "coverage" in table and "4/6" in table
    assert "2 × no prediction for this question" in table


def test_a_question_that_was_never_run_counts_zero(shop: dict[str, Path], tmp_path: Path) -> None:
    partial = tmp_path / "partial.run"
    partial.write_bytes(shop["gold"].read_bytes())
    with RunStore(partial) as store:
        store._conn.execute("DELETE FROM results WHERE question_id IN ('q1', 'q4')")
        store._conn.execute("DELETE FROM answers WHERE question_id IN ('q1', 'q4')")
    row = overall(json.loads(ok(cli("show", partial, "--format", "json")).stdout))
    assert row["outcomes"]["unanswered"] == 2 and row["answered"] == 3
    # SER: q0 and q2 ran; q3's gold fails (so does its replay); q5 has no gold to replay; q1 and q4 were not run.
    assert row["scores"]["ser"] == pytest.approx(2 / 6)
    # EA leaves out q3 (gold fails) and q5 (no gold); q1 and q4 count 0.
    assert row["scores"]["execution_accuracy"] == pytest.approx(2 / 4)
    assert "not run" in ok(cli("show", partial)).stdout


def test_through_a_pipe_nothing_is_cut(shop: dict[str, Path]) -> None:
    result = ok(cli("show", shop["pred"], shop["gold"], "--label", "predictions of the long-named system", columns=40))
    assert "…" not in result.stdout
    assert LONG_CATEGORY in result.stdout and "bis:[/x]odd" in result.stdout
    assert "predictions of the long-named system" in result.stdout
    for line in result.stdout.splitlines():
        if line.startswith("│ all"):
            assert "0.500" in line or "1.000" in line or "0.833" in line, line
    assert "scored" in result.stdout and "Res F1" in result.stdout


def test_in_a_narrow_terminal_text_wraps_at_spaces_and_nothing_is_cut(shop: dict[str, Path]) -> None:
    reader, writer = pty.openpty()
    env = {**os.environ, "COLUMNS": "60", "NO_COLOR": "1", "TERM": "xterm"}
    label = "a label with several words"
    process = subprocess.Popen(
        [str(entry_point()), "show", shop["pred"], shop["gold"], "--label", label],
        stdout=writer,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(writer)
    chunks = []
    while True:
        try:
            chunk = os.read(reader, 65536)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(reader)
    assert process.wait(timeout=120) == 0
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8"))
    assert "…" not in screen
    assert LONG_CATEGORY in screen and "0.500" in screen  # a name longer than the screen stays whole
    rows = [line for line in screen.splitlines() if line.startswith("│")]
    assert not any(label in line for line in rows) and any("several" in line for line in rows)  # wrapped at a space


def test_formats_json_csv_markdown(shop: dict[str, Path]) -> None:
    rows = list(csv.DictReader(io.StringIO(ok(cli("show", shop["pred"], "--format", "csv")).stdout)))
    every = [r for r in rows if r["table"] == "overall"]
    assert len(every) == 1 and float(every[0]["ser"]) == pytest.approx(0.5)
    assert every[0]["coverage"].startswith("0.666")
    assert {r["table"] for r in rows} == {"category", "language", "overall"}
    md = ok(cli("show", shop["pred"], "--format", "md")).stdout
    assert "### by category" in md and "| group | coverage | SER |" in md and "---:" in md
    assert "\\[/x\\]" not in md and "bis:[/x]odd" in md


def test_several_runs_side_by_side_with_labels(shop: dict[str, Path]) -> None:
    result = ok(cli("show", shop["pred"], shop["gold"], "--label", "mine", "--label", "reference", "--format", "json"))
    payload = json.loads(result.stdout)
    assert [r["label"] for r in payload["runs"]] == ["mine", "reference"]
    gold = overall(payload, 1)["outcomes"]
    assert gold["ran"] == 4 and gold["sql_failed"] + gold["no_answer"] == 2  # q3's gold fails, q5 has none
    table = ok(cli("show", shop["pred"], shop["gold"], "--label", "mine", "--label", "reference")).stdout
    overall_lines = [line for line in table.splitlines() if line.startswith("│ all")]
    assert len(overall_lines) == 2 and "mine" in overall_lines[0] and "reference" in overall_lines[1]
    one_line_error(cli("show", shop["pred"], shop["gold"], "--label", "a", "--label", "a"), "given twice")
    one_line_error(cli("show", shop["pred"], "--label", "a", "--label", "b"), "at most one per run")


def test_runs_with_different_questions_compare_on_the_shared_ones(shop: dict[str, Path]) -> None:
    result = ok(cli("show", shop["pred"], shop["first3"], "--format", "json"))
    assert "cover different questions" in result.stderr and "the 3 they share" in result.stderr
    payload = json.loads(result.stdout)
    assert overall(payload, 0)["questions"] == 3 and overall(payload, 1)["questions"] == 3
    assert overall(payload, 0)["scores"]["ser"] == pytest.approx(2 / 3)


def test_markup_in_names_prints_literally(shop: dict[str, Path], tmp_path: Path) -> None:
    odd = tmp_path / "odd[red]run.run"
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps(PREDICTIONS[0]) + "\n", encoding="utf-8")
    ok(cli("run", shop["bench"], "--system", "predictions", "--predictions", predictions, "--partial", "-o", odd))
    shown = ok(cli("show", odd)).stdout
    assert "odd[red]run" in shown and f"biarena score {odd}" in shown
    ok(cli("score", odd))
    result = ok(cli("show", odd, "--label", "[bold]mine[/x]"))
    assert "[bold]mine[/x]" in result.stdout and "bis:[/x]odd" in result.stdout


def test_usage_is_a_flag() -> None:
    help_text = ok(cli("show", "--help")).stdout
    line = next(line for line in help_text.splitlines() if "--usage" in line)
    assert "<bool>" not in line


def test_usage_shows_the_cost_when_answers_have_one(shop: dict[str, Path], tmp_path: Path) -> None:
    priced = tmp_path / "priced.run"
    priced.write_bytes(shop["pred"].read_bytes())
    with RunStore(priced) as store:
        for answer in store.answers():
            answer.usage.calls, answer.usage.prompt_tokens, answer.usage.cost = 1, 100, 0.0025
            store._conn.execute(
                "UPDATE answers SET body = ? WHERE question_id = ?", (answer.model_dump_json(), answer.question_id)
            )
    shown = ok(cli("show", priced, "--usage")).stdout
    assert "usage: 6 model calls, 0 replies from the cache, 600 prompt + 0 completion tokens, cost 0.0150" in shown
    assert ok(cli("show", priced, "--format", "json")).stdout.count('"cost": 0.015') == 1


def read_jsonl(text: str) -> list[dict]:
    """Parse JSON lines."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_export_rows_carry_their_origin_and_count_like_show(shop: dict[str, Path]) -> None:
    rows = read_jsonl(ok(cli("export", shop["pred"], shop["gold"], "--label", "mine", "-o", "-")).stdout)
    assert len(rows) == 12
    assert {(r["run"], r["system"]) for r in rows} == {("mine", "predictions"), ("gold", "gold")}
    by_id = {r["question_id"]: r for r in rows if r["run"] == "mine"}
    assert by_id["q4"]["outcome"] == "no_answer" and by_id["q4"]["ser"] == 0.0
    assert by_id["q1"]["outcome"] == "sql_failed" and by_id["q1"]["error"]
    assert by_id["q3"]["execution_accuracy"] is None  # the gold fails
    assert by_id["q5"]["reference"] == "The spring promotion doubled orders in Dublin."
    mean = sum(r["ser"] for r in by_id.values()) / len(by_id)
    assert mean == pytest.approx(
        overall(json.loads(ok(cli("show", shop["pred"], "--format", "json")).stdout))["scores"]["ser"]
    )


def test_export_infers_the_format_from_the_extension(shop: dict[str, Path], tmp_path: Path) -> None:
    parquet = tmp_path / "auto.parquet"
    ok(cli("export", shop["pred"], "-o", parquet))
    assert parquet.read_bytes()[:4] == b"PAR1"
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(parquet)
    assert {"run", "system", "model", "reference", "outcome", "ser"} <= set(table.column_names)
    with_csv = tmp_path / "auto.csv"
    ok(cli("export", shop["pred"], "-o", with_csv))
    rows = list(csv.DictReader(with_csv.open(encoding="utf-8")))
    assert len(rows) == 6 and rows[0]["run"] and rows[0]["system"] == "predictions"
    one_line_error(cli("export", shop["pred"], "-o", tmp_path / "out.txt"), "cannot tell the format")
    one_line_error(cli("export", shop["pred"], "--format", "csv", "-o", tmp_path / "x.parquet"), "--format says csv")
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "x.parquet").exists()


def test_export_has_judge_scores_as_columns(shop: dict[str, Path], tmp_path: Path) -> None:
    judged = tmp_path / "judged.run"
    judged.write_bytes(shop["pred"].read_bytes())
    with RunStore(judged) as store:
        store.put_scores(
            [Score(question_id="q5", name="judge_correctness", scorer="judge", scorer_version="1", value=0.75)]
        )
    rows = list(csv.DictReader(io.StringIO(ok(cli("export", judged, "--format", "csv")).stdout)))
    assert {r["question_id"]: r["judge_correctness"] for r in rows}["q5"] == "0.75"
    shown = ok(cli("show", judged)).stdout
    assert "judge_correctness" in shown


def test_export_or_report_naming_a_directory_is_one_line(shop: dict[str, Path], tmp_path: Path) -> None:
    one_line_error(cli("export", shop["pred"], "-o", tmp_path), "is a directory")
    one_line_error(cli("report", shop["pred"], "-o", tmp_path), "is a directory")
    blocker = tmp_path / "a-file.txt"
    blocker.write_text("not a folder\n", encoding="utf-8")
    one_line_error(cli("export", shop["pred"], "-o", blocker / "y.jsonl"), "is not a directory")
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"


def test_files_respect_the_umask(shop: dict[str, Path], tmp_path: Path) -> None:
    ok(cli("export", shop["pred"], "-o", tmp_path / "open.jsonl", umask=0o022))
    ok(cli("report", shop["pred"], "-o", tmp_path / "open.html", umask=0o022))
    ok(cli("export", shop["pred"], "-o", tmp_path / "private.csv", umask=0o077))
    assert (tmp_path / "open.jsonl").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "open.html").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "private.csv").stat().st_mode & 0o777 == 0o600
