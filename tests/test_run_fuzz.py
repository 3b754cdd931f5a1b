"""Fuzzing the run's input doors (predictions files, http replies, command replies) through the installed command:
exit 0 (or 1 when no answer succeeded), or exit 2 with one line; never a traceback; nothing changed outside -o."""

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.run_helpers import Reply, cli, http_system, make_shop, tree_state

pytestmark = pytest.mark.slow

FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
IDS = [f"q{i:04d}" for i in range(4)]

surrogates = st.sampled_from(["\ud800", "\udfff", "\ud83d", "\ude00"])
texts = st.lists(st.text(max_size=6) | surrogates, max_size=4).map("".join)
sqls = texts | st.sampled_from(
    [
        "SELECT 1",
        "SELECT count(*) FROM sales",
        "SELEC 1",
        "DELETE FROM sales",
        'SELECT 1 AS "\ud800"',
        "SELECT * FROM no_table",
        "SELECT zeroblob(100000)",
        "SELECT [/x] FROM sales",
        "",
    ]
)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | texts | sqls
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3), max_leaves=10
)
replies = (
    st.fixed_dictionaries(
        {},
        optional={
            "sql": sqls | json_values,
            "queries": st.lists(sqls | json_values, max_size=4) | sqls | json_values,
            "answer": json_values,
            "plan": texts | json_values,
        },
    )
    | json_values
)


def _dump(value: object) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory, sales_db_template: Path) -> Path:
    """A folder holding a small benchmark; every example writes its run into a fresh folder inside it."""
    root = tmp_path_factory.mktemp("fuzz")
    make_shop(root, sales_db_template, count=len(IDS))
    return root


def _check(arena: Path, args: list[object], out_dir: Path) -> None:
    before = tree_state(arena, skip=(out_dir,))
    result = cli("run", arena / "shop", *args, "-o", out_dir / "r.run", timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    if result.returncode == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    else:
        assert result.returncode in (0, 1), (result.returncode, result.stderr)
        assert (out_dir / "r.run").is_file()
    assert tree_state(arena, skip=(out_dir,)) == before
    assert sorted(p.name for p in out_dir.iterdir() if p.name != "inputs") in ([], ["r.run"])


prediction_lines = st.one_of(
    st.fixed_dictionaries(
        {"question_id": st.sampled_from(IDS) | texts | json_values},
        optional={"sql": sqls | json_values, "predicted_sql": sqls, "query": sqls | json_values},
    ).map(_dump),
    json_values.map(_dump),
    st.binary(max_size=40),
    texts.map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@settings(FUZZ, max_examples=12)
@given(lines=st.lists(prediction_lines, max_size=5))
def test_fuzzed_predictions_files(arena: Path, lines: list[bytes]) -> None:
    out_dir = Path(tempfile.mkdtemp(dir=arena))
    inputs = out_dir / "inputs"
    inputs.mkdir()
    predictions = inputs / "p.jsonl"
    predictions.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    try:
        _check(arena, ["--system", "predictions", "--predictions", predictions, "--partial"], out_dir)
    finally:
        shutil.rmtree(out_dir)


http_replies = st.one_of(
    replies.map(lambda r: Reply(body=_dump(r))),
    st.builds(Reply, body=st.binary(max_size=60), status=st.sampled_from([200, 200, 404, 500])),
    replies.map(lambda r: Reply(body=_dump(r), length=-1, chunk=7)),
)


@settings(FUZZ, max_examples=8)
@given(answers=st.lists(http_replies, min_size=len(IDS), max_size=len(IDS)))
def test_fuzzed_http_replies(arena: Path, answers: list[Reply]) -> None:
    out_dir = Path(tempfile.mkdtemp(dir=arena))
    by_id = dict(zip(IDS, answers, strict=True))
    try:
        with http_system(lambda payload: by_id[payload["question_id"]]) as (url, _):
            _check(arena, ["--system", "http", "--url", url, "--max-reply-bytes", "4000"], out_dir)
    finally:
        shutil.rmtree(out_dir)


command_replies = st.tuples(replies.map(_dump) | st.binary(max_size=60), st.sampled_from([0, 0, 0, 1, 3]))


@settings(FUZZ, max_examples=6)
@given(answers=st.lists(command_replies, min_size=len(IDS), max_size=len(IDS)))
def test_fuzzed_command_replies(arena: Path, answers: list[tuple[bytes, int]]) -> None:
    out_dir = Path(tempfile.mkdtemp(dir=arena))
    inputs = out_dir / "inputs"
    inputs.mkdir()
    table = inputs / "replies.json"
    table.write_text(json.dumps({qid: [body.hex(), code] for qid, (body, code) in zip(IDS, answers, strict=True)}))
    script = inputs / "system.py"
    script.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        f"body, code = json.load(open({str(table)!r}))[p['question_id']]\n"
        "sys.stdout.buffer.write(bytes.fromhex(body))\n"
        "sys.exit(code)\n",
        encoding="utf-8",
    )
    try:
        _check(arena, ["--system", "command", "--command", f"{sys.executable} {script}"], out_dir)
    finally:
        shutil.rmtree(out_dir)
