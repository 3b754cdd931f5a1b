"""The validation queue: `biarena validate` in a pseudo-terminal, decisions on disk, `run --accepted-only`."""

import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark, save_benchmark
from biarena.errors import FormatError, UsageError
from biarena.generate.validation import (
    VALIDATION_FILE,
    accepted_only,
    accepted_questions,
    load_decisions,
    pending_questions,
    record_decision,
)
from biarena.records import Benchmark, DatabaseRef, Question
from tests.cli_in_process import cli
from tests.test_cli_output import entry_point

TEXTS = {
    "q1": "How many sales were made?",
    "q2": "What was the total revenue?",
    "q3": "Which city sells the most?",
    "q4": "Which product sells the least?",
}
GOLD = {
    "q1": "SELECT count(*) FROM sales",
    "q2": "SELECT sum(amount) FROM sales",
    "q3": "SELECT city_id FROM sales GROUP BY city_id ORDER BY sum(amount) DESC LIMIT 1",
    "q4": "SELECT product_id FROM sales GROUP BY product_id ORDER BY sum(amount) LIMIT 1",
}


@pytest.fixture
def bench(tmp_path: Path, sales_db: Path) -> Path:
    """A four-question benchmark with a checks.jsonl like a generated one's."""
    made = Benchmark(
        name="shop",
        databases={"sales": DatabaseRef(path=str(sales_db))},
        questions=[
            Question(
                id=k,
                text=t,
                database="sales",
                labels=["bibench:descriptive/basic"],
                tables=["sales"],
                gold_sql=[GOLD[k]],
            )
            for k, t in TEXTS.items()
        ],
    )
    root = save_benchmark(made, tmp_path / "shop")
    check = {
        "id": "q1",
        "answerability": {"answerability": "Answerable", "reasoning": "Each row of sales is one sale."},
        "tables_identified": {"tables": []},
        "tables_verified": {"tables": ["sales"], "explanation": "Sales alone holds the sales."},
        "tables_corrected": True,
    }
    (root / "checks.jsonl").write_text(json.dumps(check) + "\n")
    return root


class Terminal:
    """`biarena ARGS` on a pseudo-terminal: read until a text shows, type a line."""

    def __init__(self, *args: str | Path) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm", "COLUMNS": "200", "USER": "ana"}
        self.process = subprocess.Popen(
            [str(entry_point()), *map(str, args)], stdin=slave, stdout=slave, stderr=slave, env=env
        )
        os.close(slave)
        self.screen = ""

    def expect(self, text: str, timeout: float = 60) -> str:
        """Read until `text` shows on the screen (after what earlier calls consumed); return what came before it."""
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left))
            if not ready:
                raise AssertionError(f"{text!r} never showed; the screen reads:\n{self.screen}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"the program ended before {text!r} showed:\n{self.screen}")
            self.screen += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", chunk.decode("utf-8", "replace")).replace("\r", "")
        before, _, self.screen = self.screen.partition(text)
        return before

    def type(self, line: str) -> None:
        """Type a line and Enter."""
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> tuple[int, str]:
        """Wait for the end; return the exit code and the rest of the screen."""
        code = self.process.wait(timeout=60)
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.screen += chunk.decode("utf-8", "replace").replace("\r", "")
        os.close(self.master)
        return code, self.screen


def test_review_in_a_terminal_accepts_edits_rejects_quits_and_resumes(bench: Path) -> None:
    terminal = Terminal("validate", bench)
    terminal.expect("0 of 4 questions decided, 4 to review")
    shown = terminal.expect("decision [a/e/r/s/q]:")
    assert "How many sales were made?" in shown and "bibench:descriptive/basic" in shown and "sales" in shown
    assert "Answerable: Each row of sales is one sale." in shown
    assert "(corrected from none): Sales alone holds the sales." in shown
    terminal.type("a")
    assert "What was the total revenue?" in terminal.expect("decision [a/e/r/s/q]:")
    terminal.type("x")
    terminal.expect("type one of: a accept, e edit, r reject, s skip, q quit")
    terminal.expect("decision [a/e/r/s/q]:")
    terminal.type("e")
    terminal.expect("new text (empty to go back):")
    terminal.type("What was the total revenue in euros?")
    assert "Which city sells the most?" in terminal.expect("decision [a/e/r/s/q]:")
    terminal.type("r")
    terminal.expect("decision [a/e/r/s/q]:")
    terminal.type("q")
    code, rest = terminal.finish()
    assert code == 0 and "1 accepted, 1 edited, 1 rejected, 0 skipped; 1 still to decide" in rest

    decisions = load_decisions(bench)
    assert {k: d.decision for k, d in decisions.items()} == {"q1": "accepted", "q2": "edited", "q3": "rejected"}
    assert decisions["q2"].text == "What was the total revenue in euros?"
    assert decisions["q2"].original == "What was the total revenue?"
    assert all(d.reviewer == "ana" and d.at.tzinfo is not None for d in decisions.values())
    assert load_benchmark(bench).question("q2").text == "What was the total revenue?"  # questions are not rewritten

    again = Terminal("validate", bench, "--reviewer", "bo")
    again.expect("3 of 4 questions decided, 1 to review")
    assert "Which product sells the least?" in again.expect("decision [a/e/r/s/q]:")
    again.type("s")
    code, rest = again.finish()
    assert code == 0 and "0 accepted, 0 edited, 0 rejected, 1 skipped; 1 still to decide" in rest
    third = Terminal("validate", bench)
    third.expect("decision [a/e/r/s/q]:")
    third.type("a")
    code, rest = third.finish()
    assert code == 0 and load_decisions(bench)["q4"].reviewer == "ana"
    assert "4 of 4 questions decided, 0 to review" in cli("validate", bench).stdout


def test_end_of_input_quits_and_keeps_decisions(bench: Path) -> None:
    result = subprocess.run(
        [str(entry_point()), "validate", bench, "--reviewer", "cy"], input="a\n", capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0 and "1 accepted" in result.stdout
    assert list(load_decisions(bench)) == ["q1"]


def test_accepted_only_runs_accepted_questions_with_their_edits(bench: Path, tmp_path: Path) -> None:
    benchmark = load_benchmark(bench)
    refused = cli("run", bench, "--system", "gold", "--accepted-only", "-o", tmp_path / "none.run")
    assert refused.returncode == 2 and "no accepted questions" in refused.stderr
    record_decision(benchmark, benchmark.question("q1"), "accepted", "ana")
    record_decision(benchmark, benchmark.question("q2"), "edited", "ana", "What was the total revenue in euros?")
    record_decision(benchmark, benchmark.question("q3"), "accepted", "ana")
    record_decision(benchmark, benchmark.question("q3"), "rejected", "bo")  # the latest decision counts
    assert [q.id for q in pending_questions(benchmark)] == ["q4"]
    chosen = accepted_questions(benchmark)
    assert [(q.id, q.text) for q in chosen] == [("q1", TEXTS["q1"]), ("q2", "What was the total revenue in euros?")]
    assert accepted_only(benchmark).root == benchmark.root

    run = tmp_path / "gold.run"
    result = cli("run", bench, "--system", "gold", "--accepted-only", "-o", run)
    assert result.returncode == 0, result.stderr
    assert "(2 questions)" in result.stderr
    exported = tmp_path / "gold.jsonl"
    assert cli("export", run, "-o", exported).returncode == 0
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert sorted((r["question_id"], r["question"]) for r in rows) == [
        ("q1", TEXTS["q1"]),
        ("q2", "What was the total revenue in euros?"),
    ]


def test_decision_files_are_checked_and_a_cut_last_line_is_ignored(bench: Path) -> None:
    benchmark = load_benchmark(bench)
    record_decision(benchmark, benchmark.question("q1"), "accepted", "ana")
    path = bench / VALIDATION_FILE
    with path.open("a") as handle:
        handle.write('{"question_id": "q2", "decis')
    assert list(load_decisions(bench)) == ["q1"]
    path.write_text('{"question_id": "q2", "decision": "maybe"}\n' + path.read_text())
    with pytest.raises(FormatError, match="line 1: not a validation decision"):
        load_decisions(bench)
    with pytest.raises(UsageError, match="needs the new text"):
        record_decision(benchmark, benchmark.question("q2"), "edited", "ana", "  ")
