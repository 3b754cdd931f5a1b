"""Keys never reach a file or the console: a key planted through every way one can be given (the environment, a
models file, the URL, a header) and a server that quotes it back (its model list, its error bodies) is found in no
file that run, score, export, report, show and campaign write, nor in what they print; the ways that would store
it are refused in one line."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_in_process import cli
from tests.endpoint_stub import endpoint
from tests.judge_run_helpers import corgi_bench, fill
from tests.run_helpers import spec_of

BEARER = "sk-planted-bearer-3f9a1c77e2"
"""The bearer key, from the variable api_key_env names."""
HEADER = "hk-planted-header-8d2e4b10f5"
"""A gateway's X-Api-Key, from the variable key_headers names."""
REFUSED = {
    "userinfo": "pw-planted-userinfo-5e6f7a8b",
    "query": "qk-planted-query-1a2b3c4d",
    "literal header": "lh-planted-literal-9c8d7e6f",
    "models file key": "yk-planted-yaml-4d5e6f7a",
    "models file header": "yh-planted-yaml-0b1c2d3e",
    "key as a variable": "vk-planted-variable-7f8e9d0c",
    "campaign plan": "ck-planted-plan-2e3f4a5b",
}
"""Keys given where they would be stored: each is refused."""


def reply(body: dict) -> str:
    """SQL for the agent; valid JSON for a judge's schema."""
    if "response_format" in body:
        return json.dumps(fill(body["response_format"]["json_schema"]["schema"]))
    return "SELECT count(*) FROM sales"


def models_listed() -> list[dict]:
    """A gateway's /v1/models entries that quote the keys they were listed with."""
    return [
        {
            "id": name,
            "object": "model",
            "owned_by": f"org-{BEARER}",
            "metadata": {"caller": f"Bearer {BEARER}", "api_key": HEADER, "note": f"listed for {HEADER}"},
        }
        for name in ("m", "j")
    ]


def assert_refused(result: subprocess.CompletedProcess, *hints: str) -> None:
    """Exit 2 with one line naming where the key belongs, and no key in it."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for hint in hints:
        assert hint in lines[0], lines[0]


def test_a_key_planted_every_way_is_in_no_file_and_no_output(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # the response cache and everything else biarena keeps between runs
    monkeypatch.setenv("BIARENA_HOME", str(home))
    monkeypatch.setenv("PLANTED_BEARER", BEARER)
    monkeypatch.setenv("PLANTED_HEADER", HEADER)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("BIARENA_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    corgi_bench(tmp_path / "bench", sales_db, 2)
    bench = tmp_path / "bench" / "corgi-mini"
    out = tmp_path / "keys.run"
    keys = ["-M", "api_key_env=PLANTED_BEARER", "-M", "key_headers=X-Api-Key=PLANTED_HEADER"]
    results = []
    with endpoint(
        reply,
        key=BEARER,
        header_keys={"X-Api-Key": HEADER},
        models=models_listed(),
        echo=True,
        # the first question: a 500 quoting the keys (retried, its wait printed), then a reply; the second: a 401
        # quoting them (its error stored on the answer)
        actions=[("status", 500), ("reply",), ("status", 401)],
    ) as (url, server):
        (tmp_path / "models.yaml").write_text(
            f"judge:\n  model: openai:j@{url}\n  api_key_env: PLANTED_BEARER\n"
            "  key_headers: {X-Api-Key: PLANTED_HEADER}\n  retries: 1\n"
            f"leaky:\n  model: openai:m@{url}\n  api_key: {REFUSED['models file key']}\n"
            f"leaky_header:\n  model: openai:m@{url}\n"
            f"  extra_headers: {{Authorization: 'Bearer {REFUSED['models file header']}'}}\n"
        )
        run = cli(
            "run", bench, "--agent", "text2sql", "--model", f"openai:m@{url}", *keys, "-M", "retries=1", "-o", out
        )
        results.append(run)
        assert run.returncode == 3, run.stderr  # the 401 left one question without an answer
        assert "waiting 1 s" in run.stderr and "***" in run.stderr
        server.actions.append(("status", 500))
        scored = cli("score", out, "--judge", "corgi", "--judge-model", "judge")
        results.append(scored)
        assert scored.returncode == 0, scored.stderr
        plan = tmp_path / "plan.yaml"
        plan.write_text(
            "matrix:\n  benchmarks: [bench/corgi-mini]\n  systems: [text2sql]\n"
            f"  models: [{{model: 'openai:m@{url}', options: {{api_key_env: PLANTED_BEARER, "
            "key_headers: {X-Api-Key: PLANTED_HEADER}, retries: 0, cache: false}}]\n"
            "  scorers: [execution]\nlimit: 1\n"
        )
        campaign = cli("campaign", plan, "-o", tmp_path / "campaign")
        results.append(campaign)
        assert campaign.returncode == 0, campaign.stderr

        host = url.removeprefix("http://")

        def attempt(model: str, *options: str) -> subprocess.CompletedProcess:
            return cli("run", bench, "--agent", "text2sql", "--model", model, *options, "-o", tmp_path / "no.run")

        literal = f"extra_headers=X-Api-Key={REFUSED['literal header']}"
        as_variable = f"api_key_env={REFUSED['key as a variable']}"
        refused = {
            "userinfo": attempt(f"openai:m@http://user:{REFUSED['userinfo']}@{host}"),
            "query": attempt(f"openai:m@{url}?api-key={REFUSED['query']}"),
            "literal header": attempt(f"openai:m@{url}", "-M", literal),
            "models file key": attempt("leaky"),
            "models file header": attempt("leaky_header"),
            "key as a variable": cli(
                "score", out, "--judge", "corgi", "--judge-model", "judge", "--judge-M", as_variable
            ),
        }
        plan.write_text(plan.read_text().replace("http://", f"http://me:{REFUSED['campaign plan']}@"))
        refused["campaign plan"] = cli("campaign", plan, "-o", tmp_path / "refused-campaign")
    assert server.requests and set(server.authorizations) == {f"Bearer {BEARER}"}
    for way in ("userinfo", "query"):
        assert_refused(refused[way], "holds a key", "api_key_env", "***")
    assert_refused(refused["literal header"], "'X-Api-Key' carries a key", "key_headers")
    assert_refused(refused["models file key"], "api_key_env")
    assert_refused(refused["models file header"], "'Authorization' carries a key", "key_headers")
    assert_refused(refused["key as a variable"], "not the key itself")
    assert_refused(refused["campaign plan"], "holds a key", "api_key_env")
    results += refused.values()

    for name in ("keys.jsonl", "keys.csv", "keys.parquet"):
        results.append(cli("export", out, "-o", tmp_path / name))
    results.append(cli("report", out, "-o", tmp_path / "report.html"))
    results.append(cli("report", out, "-o", tmp_path / "report.md"))
    results.append(cli("report", tmp_path / "campaign", "-o", tmp_path / "campaign.html"))
    results.append(cli("show", out, "--usage"))
    results.append(cli("show", out, "--format", "json"))
    results.append(cli("show", tmp_path / "campaign"))
    results.append(cli("show", out, "--trace", "q000"))
    assert all(result.returncode in (0, 2, 3) for result in results), [r.stderr for r in results]
    assert all(r.returncode == 0 for r in results[-10:]), [r.stderr for r in results[-10:]]

    # what the server said about the model is kept, without the keys it quoted
    identity = spec_of(out)["options"]["model_identity"]
    assert identity["owned_by"] == "org-***" and identity["metadata"]["api_key"] == "***"

    planted = [BEARER, HEADER, *REFUSED.values()]
    printed = "".join(result.stdout + result.stderr for result in results)
    assert not [key for key in planted if key in printed]
    given = {tmp_path / "models.yaml", plan}  # the files the keys were planted in, not written by biarena
    files = [path for path in tmp_path.rglob("*") if path.is_file() and path not in given]
    written = {str(path.relative_to(tmp_path)) for path in files}
    assert {"keys.run", "home/llm-cache.sqlite", "campaign/campaign.json", "campaign/results.csv"} <= written
    assert {"keys.jsonl", "keys.csv", "keys.parquet", "report.html", "report.md", "campaign.html"} <= written
    assert [name for name in written if name.startswith("campaign/runs/")]
    leaks = [(str(path), key) for path in files for key in planted if key.encode() in path.read_bytes()]
    assert not leaks
    import pyarrow.parquet

    table = pyarrow.parquet.read_table(tmp_path / "keys.parquet").to_pylist()
    assert table and not [key for key in planted if key in json.dumps(table, default=str)]
