"""What a model server or a system under test says back is redacted before it is stored or printed: a server that
quotes the key it was sent (as written, URL-encoded, in base64, reversed, in hex, split across the pieces of a
streamed reply, in an error body) has it masked in the run file, the cache, the report, exports and the console,
and the run says how many replies held it."""

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from biarena.llm import Message, Model
from biarena.llm.cache import ResponseCache
from biarena.llm.mock_provider import MockProvider
from biarena.llm.redact import (
    MASK,
    base64_cores,
    mask_keys,
    redact_reply,
    redact_start,
    redact_text,
    remember_secret,
    replies_masked,
)
from biarena.llm.types import ChatRequest, Completion
from tests.cli_in_process import cli
from tests.key_echo_stub import FORMS, key_echo
from tests.run_helpers import answers_of, make_shop, spec_of

MODEL_KEY = "sk-echo/7Qp2+Zr9XkL4=mN8vB3tY6-model"
"""The model endpoint's bearer key (its '/', '+' and '=' change when URL-encoded)."""
SYSTEM_KEY = "bk-echo_Rt5/Wq8+Lm3=Hs6Jd9-system"
"""A key in the environment that biarena sends no system, which a system may know all the same."""


def every_form(key: str) -> str:
    """The key in every form, one after another."""
    return " ".join(form(key) for form in FORMS.values())


def leaked(key: str, files: list[Path], printed: str) -> list[tuple[str, str]]:
    """The forms of `key` found in a file (read as bytes) or in what was printed, with where."""
    found = []
    for name, form in FORMS.items():
        quoted = form(key)
        found += [(name, "printed")] if quoted in printed else []
        found += [(name, str(path)) for path in files if quoted.encode() in path.read_bytes()]
    return found


def test_every_form_of_the_key_is_masked() -> None:
    remember_secret(MODEL_KEY)
    for name, form in FORMS.items():
        masked = mask_keys(f"said: {form(MODEL_KEY)}.")
        if " of " in name:  # the encoding of a longer text: what the text around the key decides is left
            assert MASK in masked and form(MODEL_KEY) not in masked, name
        else:
            assert masked == f"said: {MASK}.", name


@pytest.mark.parametrize("before", ["", "B", "Be", "Bearer ", "user:", "abcd"])
@pytest.mark.parametrize("after", ["", "x", "xy"])
def test_base64_of_a_text_holding_the_key_loses_it_at_every_alignment(before: str, after: str) -> None:
    remember_secret(MODEL_KEY)
    data = f"{before}{MODEL_KEY}{after}".encode()
    for encoded in (base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode().rstrip("=")):
        masked = mask_keys(encoded)
        assert MASK in masked and not any(core in masked for core in base64_cores(MODEL_KEY))
        # what is left around the mask is at most the characters that share bits with the text around the key
        assert len(masked) - len(MASK) <= len(encoded) - 4 * len(MODEL_KEY) // 3 + 4


def test_a_reply_without_a_key_is_kept_as_written_and_not_counted() -> None:
    remember_secret(MODEL_KEY)
    reply = "SELECT 1 -- see http://docs.example/page?tab=sql; the Bearer scheme; sk-echo is a prefix"
    before = replies_masked()
    assert redact_reply(reply) == reply and redact_reply({"sql": reply}) == {"sql": reply}
    assert replies_masked() == before
    assert redact_reply(f"{reply} {MODEL_KEY} {FORMS['reversed'](MODEL_KEY)}") == f"{reply} {MASK} {MASK}"
    assert replies_masked() == before + 1  # one reply, however many times it holds the key
    assert redact_reply({FORMS["hex"](MODEL_KEY): [FORMS["base64"](MODEL_KEY)]}) == {MASK: [MASK]}


def test_the_start_of_a_longer_text_loses_a_key_cut_short_at_its_end() -> None:
    remember_secret(MODEL_KEY)
    partial = FORMS["percent every byte"](MODEL_KEY)[:60]  # too short to be found as a key
    assert redact_start(f"said {partial}", whole=True) == f"said {partial}"
    words = "and so on " * 100
    kept = redact_start(f"said {MODEL_KEY}, {words}then {partial}", whole=False)
    assert kept.startswith(f"said {MASK}, and so on") and partial[:3] not in kept


def test_a_short_value_is_no_key_and_masks_nothing() -> None:
    remember_secret("sql")
    remember_secret("SELECT")
    text = "SELECT sql FROM t"
    assert mask_keys(text) == text and redact_text(text) == text


def test_a_reply_cached_before_replies_were_masked_is_masked_when_read(tmp_path: Path) -> None:
    key = "sk-cached-4b7e1d9a0c"
    remember_secret(key)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    model = Model(MockProvider(["never asked"]), cache=cache)
    request = ChatRequest.make([Message(role="user", content="q")], temperature=0.0, max_tokens=10, seed=0)
    cache.put(model.cache_key(request), Completion(text=f"the key is {FORMS['url-encoded'](key)}"))
    completion = model.complete(request)
    assert completion.cached and completion.text == f"the key is {MASK}"


def test_a_key_quoted_back_in_every_form_is_in_no_file_and_no_output(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # the response cache
    monkeypatch.setenv("BIARENA_HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    monkeypatch.setenv("BIARENA_API_KEY", SYSTEM_KEY)
    monkeypatch.chdir(tmp_path)
    shop = make_shop(tmp_path, sales_db, count=2)
    out = tmp_path / "out"
    system = tmp_path / "system.py"
    system.write_text(
        "import json, os, sys\nsys.stdin.read()\nsys.path.insert(0, sys.argv[1])\n"
        "from tests.key_echo_stub import FORMS\n"
        "said = ' '.join(form(os.environ['BIARENA_API_KEY']) for form in FORMS.values())\n"
        "print(json.dumps({'sql': f\"SELECT '{said}' AS k\", 'answer': f'The key is {said}', 'plan': said}))\n"
    )
    repo = Path(__file__).resolve().parents[1]
    results: list[subprocess.CompletedProcess] = []
    with key_echo(form=every_form, system_key=SYSTEM_KEY, chunk=3) as (url, server):
        model = ["--model", f"openai:m@{url}", "-M", "retries=0"]
        runs = {
            # streamed in 3-character pieces: a key is split across them; the /v1/models entry quotes it too
            "text2sql": cli("run", shop, "--agent", "text2sql", *model, "-o", out / "text2sql.run"),
            "sequential": cli("run", shop, "--agent", "sequential", *model, "-o", out / "sequential.run"),
        }
        server.chunk = 0  # a plain JSON reply
        runs["plain"] = cli("run", shop, "--agent", "text2sql", *model, "-M", "cache=false", "-o", out / "plain.run")
        runs["http"] = cli("run", shop, "--agent", "http", "-O", f"url={url}/system", "-o", out / "http.run")
        server.error = 401  # error bodies quoting the key
        runs["error"] = cli("run", shop, "--agent", "text2sql", *model, "-M", "cache=false", "-o", out / "error.run")
        runs["http error"] = cli("run", shop, "--agent", "http", "-O", f"url={url}/system", "-o", out / "herr.run")
    command = f"command={sys.executable} {system} {repo}"
    runs["command"] = cli("run", shop, "--agent", "command", "-O", command, "-o", out / "command.run")
    assert set(server.authorizations) == {f"Bearer {MODEL_KEY}"}
    for name, result in runs.items():
        assert result.returncode == (1 if "error" in name else 0), (name, result.stderr)
        # two questions, each reply (or error body) quoting the key, and the model list once
        assert "held the API key; masked" in result.stderr, (name, result.stderr)
    assert "2 replies held the API key; masked" in runs["http"].stderr
    results += runs.values()

    for run in out.glob("*.run"):
        results.append(cli("show", run))
        results.append(cli("show", run, "--format", "json"))
        results.append(cli("show", run, "--trace", "q0000"))
        results.append(cli("export", run, "-o", out / f"{run.stem}.jsonl"))
        results.append(cli("export", run, "-o", out / f"{run.stem}.csv"))
        results.append(cli("report", run, "-o", out / f"{run.stem}.html"))
    assert all(result.returncode == 0 for result in results[len(runs) :]), [r.stderr for r in results]

    # what was said back is kept, with the key masked: the SQL ran, the answer and the error say so
    text2sql, sequential = answers_of(out / "text2sql.run"), answers_of(out / "sequential.run")
    assert text2sql["q0000"]["final_sql"].startswith(f"SELECT '{MASK} {MASK}")
    assert sequential["q0000"]["plan"].startswith(f"read the key {MASK} {MASK}")
    assert MASK in answers_of(out / "error.run")["q0000"]["error"]
    assert answers_of(out / "herr.run")["q0000"]["error"].startswith("HTTP 401")
    assert answers_of(out / "http.run")["q0000"]["text"].startswith(f"The key is {MASK} {MASK}")
    assert answers_of(out / "command.run")["q0000"]["text"].startswith(f"The key is {MASK} {MASK}")
    assert spec_of(out / "text2sql.run")["options"]["model_identity"]["owned_by"].startswith(f"org {MASK} {MASK}")

    printed = "".join(result.stdout + result.stderr for result in results)
    files = [path for path in [*out.rglob("*"), *home.rglob("*")] if path.is_file()]
    names = {path.name for path in files}
    assert {"llm-cache.sqlite", "text2sql.run", "sequential.run", "http.run", "text2sql.html"} <= names
    assert not leaked(MODEL_KEY, files, printed)
    assert not leaked(SYSTEM_KEY, files, printed)
