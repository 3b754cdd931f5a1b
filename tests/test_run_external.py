"""External systems: a total deadline, a reply size limit and a query cap, and replies read as the contract says."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.run_helpers import BIARENA, Reply, answers_of, cli, http_system, make_shop, one_line_error


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state


def test_http_replies_are_read_as_the_contract_says(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=8)
    replies = {
        "q0000": {"queries": "SELECT count(*) FROM sales", "answer": 400},
        "q0001": {"queries": [f"SELECT {i}" for i in range(5)], "sql": "SELECT count(*) FROM city"},
        "q0002": {"queries": ["SELECT 1", 2]},
        "q0003": b'{"answer": "\\ud800 lone", "plan": "\\udc00"}',
        "q0004": Reply(body=b'{"error": "boom"}', status=500),
        "q0005": b"not json at all",
        "q0006": {"sql": 12},
        "q0007": [1, 2],
    }
    with http_system(lambda payload: replies[payload["question_id"]]) as (url, log):
        run = tmp_path / "h.run"
        result = cli("run", shop, "--system", "http", "--url", url, "--max-queries", "3", "-o", run)
    assert result.returncode == 0, result.stderr
    assert len(log.payloads) == 8 and log.payloads[0]["dialect"] == "sqlite"
    answers = answers_of(run)
    one = answers["q0000"]
    assert [s["sql"] for s in one["steps"]] == ["SELECT count(*) FROM sales"] and one["text"] == "400"
    capped = answers["q0001"]
    assert [s["sql"] for s in capped["steps"]] == ["SELECT 0", "SELECT 1", "SELECT count(*) FROM city"]
    assert capped["final_sql"] == "SELECT count(*) FROM city"
    assert capped["sanitized"] == ["3 of 6 queries not run (over the cap of 3)"]
    assert answers["q0002"]["error"] == "the reply's 'queries' item 1 is a number, not a string"
    sanitized = answers["q0003"]
    assert sanitized["status"] == "ok" and sanitized["text"] == "\ufffd lone" and sanitized["plan"] == "\ufffd"
    assert "2 lone surrogates replaced" in sanitized["sanitized"][0]
    assert answers["q0004"]["error"].startswith("HTTP 500")
    assert answers["q0005"]["error"].startswith("the reply is not JSON")
    assert answers["q0006"]["error"] == "the reply's 'sql' is a number, not a string"
    assert answers["q0007"]["error"] == "the system replied a list, not a JSON object"
    assert "q0004: no answer: HTTP 500" in result.stderr


def test_http_system_has_a_total_deadline_and_a_size_limit(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=4)
    padded = b'{"sql": "SELECT 1", "plan": "' + b"x" * 5000 + b'"}'
    replies = {
        "q0000": Reply(body=b'{"sql": "SELECT 1"}' + b" " * 200, chunk=1, pause=0.2),  # a byte at a time
        "q0001": Reply(body=padded),  # declared too large
        "q0002": Reply(body=padded, length=-1, chunk=512),  # too large, no declared length
        "q0003": {"sql": "SELECT 1"},
    }
    with http_system(lambda payload: replies[payload["question_id"]]) as (url, _):
        run = tmp_path / "slow.run"
        args = ["--system-timeout", "1.5", "--max-reply-bytes", "2000"]
        result = cli("run", shop, "--system", "http", "--url", url, *args, "-o", run)
    assert result.returncode == 0, result.stderr
    answers = answers_of(run)
    assert answers["q0000"]["error"] == "no complete reply within 1.5 s (system_timeout)"
    assert "over max_reply_bytes" in answers["q0001"]["error"]
    assert "over max_reply_bytes" in answers["q0002"]["error"]
    assert answers["q0003"]["status"] == "ok"


def test_command_system_is_stopped_at_its_deadline_with_its_children(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=3)
    pids = tmp_path / "pids"
    script = tmp_path / "system.py"
    script.write_text(
        "import json, pathlib, subprocess, sys, time\n"
        "p = json.load(sys.stdin)\n"
        "if p['question_id'] == 'q0000':\n"
        "    child = subprocess.Popen(['sleep', '60'])\n"
        f"    pathlib.Path({str(pids)!r}).open('a').write(str(child.pid) + '\\n')\n"
        "    time.sleep(60)\n"
        "elif p['question_id'] == 'q0001':\n"
        "    sys.stdout.write('[' * 3000)\n"
        "else:\n"
        "    print(json.dumps({'sql': 'SELECT 1', 'plan': '\\udc00 plan'}))\n",
        encoding="utf-8",
    )
    run = tmp_path / "c.run"
    command = f"{sys.executable} {script}"
    args = ["--system-timeout", "5", "--max-reply-bytes", "1000"]
    result = cli("run", shop, "--system", "command", "--command", command, *args, "-o", run)
    assert result.returncode == 0, result.stderr
    answers = answers_of(run)
    assert answers["q0000"]["error"] == "no reply within 5 s (system_timeout); the command was stopped"
    assert not _alive(int(pids.read_text().split()[0]))
    assert "over max_reply_bytes" in answers["q0001"]["error"]
    assert answers["q0002"]["status"] == "ok" and answers["q0002"]["plan"] == "\ufffd plan"


@pytest.mark.parametrize(
    ("system", "fragment"),
    [
        (["--system", "command", "--command", "no-such-binary-here --x"], "'no-such-binary-here' is not a program"),
        (["--system", "command", "--command", "'unclosed"], "No closing quotation"),
        (["--system", "http", "--url", "ftp://example.org"], "not an http:// or https:// URL"),
        (["--system", "http", "--url", "http://127.0.0.1:notaport/x"], "bad port"),
        (["--system", "python", "--function", "no_such_module_x:f"], "cannot load no_such_module_x:f"),
        (["--system", "gold", "--system-timeout", "3"], "does not take"),
    ],
)
def test_a_system_that_cannot_work_is_one_line_before_any_question(
    tmp_path: Path, sales_db: Path, system: list[str], fragment: str
) -> None:
    shop = make_shop(tmp_path, sales_db, count=2)
    run = tmp_path / "x.run"
    one_line_error(cli("run", shop, *system, "-o", run), fragment)
    assert not run.exists()


def test_a_predictions_line_names_its_problem(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=3)
    run = tmp_path / "p.run"
    aliases = tmp_path / "aliases.jsonl"
    aliases.write_text(
        json.dumps({"question_id": "q0000", "predicted_sql": "SELECT 1"})
        + "\n"
        + json.dumps({"question_id": "q0001", "query": "SELECT 2"})
        + "\n"
        + json.dumps({"question_id": "q0002", "sql": None})
        + "\n",
        encoding="utf-8",
    )
    result = cli("run", shop, "--system", "predictions", "--predictions", aliases, "--partial", "-o", run)
    assert result.returncode == 0, result.stderr
    answers = answers_of(run)
    assert answers["q0000"]["final_sql"] == "SELECT 1" and answers["q0001"]["final_sql"] == "SELECT 2"
    assert answers["q0002"]["error"] == "the prediction's SQL is null"
    cases = {
        '{"id": "q0000", "sql": "SELECT 1"}': "line 1: field 'question_id' is missing (it has 'id', 'sql')",
        '{"question_id": "q0000", "prediction": "SELECT 1"}': "line 1: no SQL field: expected 'sql'",
        '{"question_id": "q0000", "sql": "SELECT 1", "query": "SELECT 2"}': "fields 'sql' and 'query' disagree",
        '{"question_id": "q0000", "sql": 3}': "field 'sql' must be a string or null",
        "[1]": "line 1: expected an object",
    }
    for line, fragment in cases.items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text(line + "\n", encoding="utf-8")
        one_line_error(cli("run", shop, "--system", "predictions", "--predictions", bad, "-o", run), fragment)
    (tmp_path / "latin1.jsonl").write_bytes(b'{"question_id": "q\xe9", "sql": "SELECT 1"}\n')
    one_line_error(
        cli("run", shop, "--system", "predictions", "--predictions", tmp_path / "latin1.jsonl", "-o", run),
        "not UTF-8",
    )
    one_line_error(cli("run", shop, "--system", "predictions", "--predictions", tmp_path, "-o", run), "is a folder")
    assert os.path.exists(run)


def test_an_interrupted_run_stops_its_command_at_once_and_resumes(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=3)
    started, release = tmp_path / "started", tmp_path / "release"
    script = tmp_path / "stuck.py"
    script.write_text(
        "import json, pathlib, sys, time\n"
        "p = json.load(sys.stdin)\n"
        f"if not pathlib.Path({str(release)!r}).exists():\n"
        f"    pathlib.Path({str(started)!r}).write_text(str(__import__('os').getpid()))\n"
        "    time.sleep(600)\n"
        "print(json.dumps({'sql': 'SELECT 1'}))\n",
        encoding="utf-8",
    )
    run = tmp_path / "i.run"
    args = [str(BIARENA), "run", str(shop), "--system", "command", "--command", f"{sys.executable} {script}"]
    # a suite started in the background of a shell without job control inherits SIGINT ignored, and so would the
    # run (Python keeps an ignored SIGINT ignored): the run is started with SIGINT's default, as from a terminal
    process = subprocess.Popen(
        [*args, "-o", str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)  # not the command's 300 s deadline
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted: the answers recorded so far are kept" in stderr
    assert not _alive(int(started.read_text()))
    release.touch()
    resumed = cli(*args[1:], "-o", run)
    assert resumed.returncode == 0 and "3 ran" in resumed.stderr, resumed.stderr
