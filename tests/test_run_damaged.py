"""Damaged run files: a bad byte, bad JSON, a field of the wrong type, a dropped table or column, a cut or a bad header
is one line naming the file (and the table and row) with exit code 2 from show, score, report, export and merge;
never a traceback, and score and merge write nothing into or out of a file they could not read."""

import json
import pickle
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from biarena.campaign import run_campaign
from biarena.runner import DamagedRunFile
from tests.campaign_helpers import make_campaign_plan
from tests.cli_in_process import cli
from tests.conftest import sha256
from tests.run_helpers import cli as installed_cli
from tests.run_helpers import make_shop, one_line_error

COMMANDS = ("show", "score", "report", "export")


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory: pytest.TempPathFactory, sales_db_template: Path) -> Path:
    """A small gold run, scored (answers, results and kept statement results), checkpointed into one file."""
    root = tmp_path_factory.mktemp("damaged")
    shop = make_shop(root, sales_db_template, count=3)
    run = root / "gold.run"
    assert cli("run", shop, "--agent", "gold", "-o", run).returncode == 0
    assert cli("score", run).returncode == 0
    with sqlite3.connect(run) as conn:
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _TABLES}
    assert all(counts.values()), counts
    return run


_TABLES = ("meta", "questions", "answers", "results", "statement_results")


def _sql(*statements: str, params: tuple = ()) -> Callable[[Path], None]:
    """A damage made with SQL (the last statement takes `params`)."""

    def damage(path: Path) -> None:
        conn = sqlite3.connect(path)
        try:
            for statement in statements[:-1]:
                conn.execute(statement)
            conn.execute(statements[-1], params)
            conn.commit()
        finally:
            conn.close()

    return damage


def _nullable(table: str, column: str, kind: str = "TEXT") -> Callable[[Path], None]:
    """NULL in a NOT NULL column: the constraint is taken out of the schema first, as a foreign tool might."""

    def damage(path: Path) -> None:
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA writable_schema = ON")
            conn.execute(
                "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = ?",
                (f"{column} {kind} NOT NULL", f"{column} {kind}", table),
            )
            conn.commit()
        finally:
            conn.close()
        _sql(f"UPDATE {table} SET {column} = NULL WHERE rowid = (SELECT min(rowid) FROM {table})")(path)

    return damage


def _json_edit(table: str, column: str, change: Callable[[dict], object]) -> Callable[[Path], None]:
    """Rewrite the JSON of `column` in the first row of `table`."""

    def damage(path: Path) -> None:
        conn = sqlite3.connect(path)
        try:
            rowid, body = conn.execute(f"SELECT rowid, {column} FROM {table} ORDER BY rowid LIMIT 1").fetchone()
            conn.execute(
                f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (json.dumps(change(json.loads(body))), rowid)
            )
            conn.commit()
        finally:
            conn.close()

    return damage


def _set(data: dict, key: str, value: object) -> dict:
    return {**data, key: value}


def _first(table: str, assignment: str) -> str:
    return f"UPDATE {table} SET {assignment} WHERE rowid = (SELECT min(rowid) FROM {table})"


def _bytes(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as handle:
        handle.seek(offset)
        handle.write(data)


def _truncate(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.truncate(size // 2)


NOT_UTF8 = b'{"question_id": "q\xff\xfe"}'
ALL = frozenset(COMMANDS)
SCORE = frozenset({"score"})

# name -> (damage, what the one line names, the commands that read what was damaged)
DAMAGES: dict[str, tuple[Callable[[Path], None], tuple[str, ...], frozenset[str]]] = {
    "answer body not UTF-8": (
        _sql(_first("answers", "body = CAST(? AS TEXT)"), params=(NOT_UTF8,)),
        ("table 'answers'", "row ", "column 'body' is not UTF-8"),
        ALL,
    ),
    "answer body not JSON": (
        _sql(_first("answers", "body = '{\"question_id\": '")),
        ("table 'answers'", "row question_id 'q0000'", "Invalid JSON"),
        ALL,
    ),
    "answer body a JSON list": (
        _sql(_first("answers", "body = '[1, 2]'")),
        ("table 'answers'", "row question_id 'q0000'", "column 'body'"),
        ALL,
    ),
    "answer body a blob": (
        _sql(_first("answers", "body = X'00ff'")),
        ("table 'answers'", "row question_id 'q0000'", "column 'body'"),
        ALL,
    ),
    "answer field of the wrong type": (
        _json_edit("answers", "body", lambda d: _set(d, "usage", {"calls": "many"})),
        ("table 'answers'", "field 'usage.calls'"),
        ALL,
    ),
    "answer status unknown": (
        _json_edit("answers", "body", lambda d: _set(d, "status", "maybe")),
        ("table 'answers'", "field 'status'"),
        ALL,
    ),
    "answer body NULL": (_nullable("answers", "body"), ("table 'answers'", "row question_id 'q0000'"), ALL),
    "question body not UTF-8": (
        _sql(_first("questions", "body = CAST(? AS TEXT)"), params=(NOT_UTF8,)),
        ("table 'questions'", "column 'body' is not UTF-8"),
        ALL,
    ),
    "question body not JSON": (
        _sql(_first("questions", "body = 'not json'")),
        ("table 'questions'", "row question_id 'q0000'", "Invalid JSON"),
        ALL,
    ),
    "question without its text": (
        _json_edit("questions", "body", lambda d: {k: v for k, v in d.items() if k != "text"}),
        ("table 'questions'", "field 'text'"),
        ALL,
    ),
    "question position text": (
        _sql(_first("questions", "position = 'first'")),
        ("table 'questions'", "column 'position' must be an integer, not str"),
        ALL,
    ),
    "question position NULL": (
        _nullable("questions", "position", "INTEGER"),
        ("table 'questions'", "column 'position' must be an integer, not NULL"),
        ALL,
    ),
    "spec not JSON": (
        _sql("UPDATE meta SET value = '{' WHERE key = 'spec'"),
        ("table 'meta'", "row key 'spec'", "Invalid JSON"),
        ALL,
    ),
    "spec of the wrong shape": (
        _sql("UPDATE meta SET value = '{\"benchmark\": 3}' WHERE key = 'spec'"),
        ("table 'meta'", "row key 'spec'", "field "),
        ALL,
    ),
    "spec not UTF-8": (
        _sql("UPDATE meta SET value = CAST(? AS TEXT) WHERE key = 'spec'", params=(NOT_UTF8,)),
        ("table 'meta'", "key 'spec'", "not UTF-8"),
        ALL,
    ),
    "magic row gone": (_sql("DELETE FROM meta WHERE key = 'magic'"), ("table 'meta'", "'magic' row"), ALL),
    "scores not JSON": (
        _sql(_first("results", "scores = '[{'")),
        ("table 'results'", "row question_id 'q0000', scorer ", "column 'scores'"),
        ALL,
    ),
    "scores an object": (_sql(_first("results", "scores = '{}'")), ("table 'results'", "column 'scores'"), ALL),
    "score value text": (
        _json_edit("results", "scores", lambda s: [_set(s[0], "value", "high"), *s[1:]]),
        ("table 'results'", "column 'scores'", "field '0.value'"),
        ALL,
    ),
    "applies text": (
        _sql(_first("results", "applies = 'yes'")),
        ("table 'results'", "column 'applies' must be one of 0, 1, not str"),
        ALL,
    ),
    "scores not UTF-8": (
        _sql(_first("results", "scores = CAST(? AS TEXT)"), params=(b"[\xff]",)),
        ("table 'results'", "column 'scores' is not UTF-8"),
        ALL,
    ),
    "trace not JSON": (_sql(_first("results", "trace = 'x'")), ("table 'results'", "column 'trace'"), SCORE),
    "result time not a time": (
        _sql(_first("results", "created_at = 'yesterday'")),
        ("table 'results'", "field 'created_at'"),
        SCORE,
    ),
    "result model NULL": (_nullable("results", "model"), ("table 'results'", "column 'model' must be text"), SCORE),
    "result version a blob": (
        _sql(_first("results", "scorer_version = X'07'")),
        ("table 'results'", "column 'scorer_version' must be text, not bytes"),
        SCORE,
    ),
    "kept result not JSON": (
        _sql(_first("statement_results", "body = '{'")),
        ("table 'statement_results'", "column 'body'"),
        SCORE,
    ),
    "kept result a list": (
        _sql(_first("statement_results", "body = '[]'")),
        ("table 'statement_results'", "JSON object"),
        SCORE,
    ),
    "kept result not UTF-8": (
        _sql(_first("statement_results", "body = CAST(? AS TEXT)"), params=(b"{\xff}",)),
        ("table 'statement_results'", "column 'body' is not UTF-8"),
        SCORE,
    ),
    **{
        f"table {table} dropped": (_sql(f"DROP TABLE {table}"), (f"table '{table}'", "missing"), ALL)
        for table in _TABLES
    },
    "answers.created_at dropped": (
        _sql("ALTER TABLE answers DROP COLUMN created_at"),
        ("table 'answers'", "column 'created_at' is missing"),
        ALL,
    ),
    "questions.position dropped": (
        _sql("ALTER TABLE questions DROP COLUMN position"),
        ("table 'questions'", "column 'position' is missing"),
        ALL,
    ),
    "results.trace dropped": (
        _sql("ALTER TABLE results DROP COLUMN trace"),
        ("table 'results'", "column 'trace' is missing"),
        ALL,
    ),
    "truncated": (_truncate, (), ALL),
    "bad header": (lambda path: _bytes(path, 0, b"SQLite format 2\x00"), ("not a biarena run file",), ALL),
    "bad page size": (lambda path: _bytes(path, 16, b"\x00\x03"), (), ALL),
}


def _damaged(scored_run: Path, folder: Path, name: str) -> Path:
    path = folder / "damaged.run"
    shutil.copyfile(scored_run, path)
    DAMAGES[name][0](path)
    for extra in ("-wal", "-shm"):
        assert not Path(f"{path}{extra}").exists()
    return path


def _one_line(result, path: Path, names: tuple[str, ...]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert str(path) in lines[0], lines[0]
    for fragment in names:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_a_damaged_run_file_is_one_line_and_is_left_as_it_was(
    scored_run: Path, tmp_path: Path, name: str, command: str
) -> None:
    _, names, readers = DAMAGES[name]
    path = _damaged(scored_run, tmp_path, name)
    before = sha256(path)
    args = {"report": ["-o", tmp_path / "report.md"], "export": ["-o", tmp_path / "rows.jsonl"]}.get(command, [])
    result = cli(command, path, *args)
    if command in readers:
        _one_line(result, path, names)
        assert not (tmp_path / "report.md").exists() and not (tmp_path / "rows.jsonl").exists()
    else:  # what the command reads is whole: it does its work
        assert result.returncode == 0, result.stderr
    assert sha256(path) == before


@pytest.mark.parametrize("name", ["answer body not UTF-8", "kept result not JSON", "table results dropped"])
def test_merge_refuses_a_damaged_run_before_writing(scored_run: Path, tmp_path: Path, name: str) -> None:
    path = _damaged(scored_run, tmp_path, name)
    before = sha256(path)
    _one_line(cli("merge", path, "-o", tmp_path / "merged"), path, DAMAGES[name][1])
    assert sha256(path) == before
    assert not (tmp_path / "merged" / "runs").exists() or not any((tmp_path / "merged" / "runs").iterdir())


def test_the_installed_command_says_one_line_for_a_damaged_answer(scored_run: Path, tmp_path: Path) -> None:
    path = _damaged(scored_run, tmp_path, "answer body not JSON")
    before = sha256(path)
    for command in ("show", "score"):
        line = one_line_error(installed_cli(command, path), "table 'answers', row question_id 'q0000'")
        assert str(path) in line
    assert sha256(path) == before


def test_a_damaged_kept_result_of_another_shape_is_run_again(scored_run: Path, tmp_path: Path) -> None:
    path = tmp_path / "kept.run"
    shutil.copyfile(scored_run, path)
    _sql(_first("statement_results", "body = '{\"columns\": 1}'"))(path)
    assert cli("score", path, "--rescore").returncode == 0
    with sqlite3.connect(path) as conn:
        bodies = [json.loads(b) for (b,) in conn.execute("SELECT body FROM statement_results")]
    assert all("columns" not in b or isinstance(b["columns"], list) for b in bodies)


def test_the_error_crosses_to_another_process_whole() -> None:
    error = DamagedRunFile(Path("x.run"), "answers", "column 'body': not JSON", "question_id 'q1'")
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, DamagedRunFile) and str(again) == str(error) and again.row == "question_id 'q1'"


def test_a_campaign_folder_with_a_damaged_run_is_one_line(tmp_path: Path) -> None:
    plan = make_campaign_plan(tmp_path, questions=2)
    plan.write_text(plan.read_text().replace("[shop, mart]", "[shop]"))
    out = tmp_path / "out"
    run_campaign(plan, out)
    run = sorted((out / "runs").iterdir())[0]
    _sql(_first("answers", "body = 'x'"))(run)
    before = sha256(run)
    damage = f"{run}: damaged run file: table 'answers', row question_id 'q0000'"
    for args in (["show", out], ["report", out, "-o", tmp_path / "r.md"], ["merge", out, "-o", tmp_path / "merged"]):
        _one_line(cli(*args), run, (damage,))
    again = cli("campaign", plan, "-o", out)
    assert again.returncode == 2 and "Traceback" not in again.stderr, again.stderr
    assert again.stderr.strip().splitlines()[-1].startswith(f"error: {damage}"), again.stderr
    assert sha256(run) == before and not (tmp_path / "merged" / "runs").exists()
