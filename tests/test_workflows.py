"""The command line and the Python API are two faces of the same library functions: the same settings reach the
same workflow and give the same run file and scores; a misspelled keyword of the API is one line that suggests
the name meant."""

from pathlib import Path
from typing import Any

import pytest

import biarena
from biarena.errors import UsageError
from biarena.runner import RunStore
from tests.cli_in_process import cli
from tests.conftest import SALES_ROLES
from tests.run_helpers import make_shop


def _answers(path: Path) -> list[tuple[str, str | None, str | None, str]]:
    with RunStore(path) as store:
        return sorted((a.question_id, a.final_sql, a.text, a.status) for a in store.answers())


def _scores(path: Path) -> list[tuple[str, str, float | None]]:
    with RunStore(path) as store:
        return sorted((s.question_id, s.name, s.value) for s in store.scores())


def _spy(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> list[dict[str, Any]]:
    """Record the keyword arguments of every call to `module.name` (still called)."""
    import importlib

    target = importlib.import_module(module)
    real = getattr(target, name)
    calls: list[dict[str, Any]] = []

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append({"args": args, **kwargs})
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, recorded)
    return calls


def test_run_and_score_through_the_cli_and_the_api_reach_one_workflow(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = make_shop(tmp_path, sales_db)
    answered = _spy(monkeypatch, "biarena.runner.execute", "answer_questions")
    scored = _spy(monkeypatch, "biarena.scoring.execute", "score_run")
    by_cli, by_api = tmp_path / "cli.run", tmp_path / "api.run"

    assert cli("run", bench, "--agent", "text2sql", "--model", "mock", "-M", "temperature=0", "--limit", "4",
               "-o", by_cli).returncode == 0  # fmt: skip
    path = biarena.run(bench, agent="text2sql", model="mock", model_options={"temperature": 0}, limit=4, out=by_api)
    assert path == by_api and len(answered) == 2
    cli_call, api_call = answered
    assert [q.id for q in cli_call["args"][3]] == [q.id for q in api_call["args"][3]]  # the same 4 questions
    assert cli_call["args"][2].model.spec == api_call["args"][2].model.spec  # the same system and model
    settings = [{k: v for k, v in call.items() if k not in ("args", "on_event")} for call in answered]
    assert settings[0] == settings[1]
    assert _answers(by_cli) == _answers(by_api) and len(_answers(by_cli)) == 4

    assert cli("score", by_cli, "--scorer", "execution_accuracy", "--scorer", "execution").returncode == 0
    assert biarena.score(by_api, scorers=["execution_accuracy", "execution"]) == by_api
    assert len(scored) == 2
    assert [s.scorer.name for s in scored[0]["args"][1]] == [s.scorer.name for s in scored[1]["args"][1]]
    assert _scores(by_cli) == _scores(by_api) and _scores(by_cli)


def test_a_report_through_the_cli_and_the_api_is_the_same_file(tmp_path: Path, sales_db: Path) -> None:
    bench = make_shop(tmp_path, sales_db)
    run = tmp_path / "gold.run"
    assert biarena.run(bench, agent="gold", out=run) == run
    biarena.score(run)
    assert cli("report", run, "-o", tmp_path / "cli.md", "--title", "same").returncode == 0
    assert biarena.report(run, tmp_path / "api.md", title="same") == tmp_path / "api.md"
    assert (tmp_path / "cli.md").read_text(encoding="utf-8") == (tmp_path / "api.md").read_text(encoding="utf-8")


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    import sqlite3

    with sqlite3.connect(path) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {table: db.execute(f'SELECT * FROM "{table}"').fetchall() for table in tables}


def test_synth_through_the_cli_and_the_api_reaches_one_workflow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _spy(monkeypatch, "biarena.synth.execute_synth", "generate")
    by_cli, by_api = tmp_path / "cli.db", tmp_path / "api.db"
    result = cli("synth", "app_store", "--scale", "0.02", "--seed", "3", "-o", by_cli)
    assert result.returncode == 0 and "verified: every rule holds" in result.stderr
    assert biarena.synth("app_store", by_api, scale=0.02, seed=3) == by_api
    assert len(made) == 2
    assert made[0]["args"][0] == made[1]["args"][0]  # the same spec
    settings = [{k: v for k, v in call.items() if k != "args"} for call in made]
    assert settings[0] == settings[1] == {
        "scale": 0.02, "seed": 3, "fmt": None, "engine": "local", "address": None
    }  # fmt: skip
    assert _rows(by_cli) == _rows(by_api) and _rows(by_cli)["app"]


def test_synth_refuses_parallel_settings_without_partitions_in_the_cli_words(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^--workers, --engine and --address go with --partitions$"):
        biarena.synth("app_store", tmp_path / "x.db", workers=2)
    assert not (tmp_path / "x.db").exists()


def test_a_suite_through_the_cli_and_the_api_is_the_same_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _spy(monkeypatch, "biarena.generate.corgi_suite", "build")
    by_cli, by_api = tmp_path / "cli", tmp_path / "api"
    result = cli("suite", "corgi", "--verticals", "app-store", "--scale", "0.05", "--seed", "2", "-o", by_cli)
    assert result.returncode == 0 and "questions over 1 databases" in result.stderr
    assert biarena.suite(by_api, verticals=["app-store"], scale=0.05, seed=2) == by_api
    assert len(built) == 2
    settings = [{k: v for k, v in call.items() if k not in ("args", "on_progress")} for call in built]
    assert settings[0] == settings[1] == {"verticals": ["app_store"], "scale": 0.05, "seed": 2}
    on_cli, on_api = biarena.load_benchmark(by_cli), biarena.load_benchmark(by_api)
    assert on_cli.questions and list(on_cli.databases) == ["app_store"]
    assert [q.model_dump() for q in on_cli.questions] == [q.model_dump() for q in on_api.questions]


def test_generated_questions_through_the_cli_and_the_api_are_the_same(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roles = tmp_path / "roles.yaml"
    roles.write_text(SALES_ROLES, encoding="utf-8")
    made = _spy(monkeypatch, "biarena.generate.execute_templates", "generate_question_set")
    by_cli, by_api = tmp_path / "cli", tmp_path / "api"
    args = ["--roles", roles, "--languages", "en", "--per-category", "2", "--seed", "4", "--name", "same"]
    assert cli("generate", "templates", sales_db, *args, "-o", by_cli).returncode == 0
    path = biarena.generate_templates(sales_db, by_api, roles=roles, languages=["en"], per_category=2, seed=4,
                                      name="same")  # fmt: skip
    assert path == by_api and len(made) == 2
    settings = [{k: v for k, v in call.items() if k != "args"} for call in made]
    assert settings[0] == settings[1] and settings[0]["languages"] == ("en",)
    on_cli, on_api = biarena.load_benchmark(by_cli), biarena.load_benchmark(by_api)
    assert on_cli.questions and [q.model_dump() for q in on_cli.questions] == [q.model_dump() for q in on_api.questions]

    asked = _spy(monkeypatch, "biarena.generate.bibench_questions", "generate_template_questions")
    by_cli, by_api = tmp_path / "cli-q", tmp_path / "api-q"
    options = ["-O", f"roles={roles}", "-O", "per_category=1"]
    assert cli("generate", "questions", sales_db, "--method", "template", *options, "-o", by_cli).returncode == 0
    path = biarena.generate_questions(sales_db, by_api, method="template", options={"roles": roles, "per_category": 1})
    assert path == by_api and len(asked) == 2
    settings = [{k: v for k, v in call.items() if k not in ("args", "say")} for call in asked]
    assert settings[0] == settings[1] and settings[0]["per_category"] == 1
    texts = [[q.text for q in biarena.load_benchmark(out).questions] for out in (by_cli, by_api)]
    assert texts[0] and texts[0] == texts[1]


@pytest.mark.parametrize(
    ("call", "meant"),
    [
        (lambda out: biarena.run("bis-synth", agent="gold", out=out, per_categroy=1), "per_category"),
        (lambda out: biarena.run("bis-synth", agent="gold", out=out, retry_error=True), "retry_errors"),
        (lambda out: biarena.score(out, rescor=True), "rescore"),
        (lambda out: biarena.score(out, judge_modle="mock"), "judge_model"),
        (lambda out: biarena.report(out, titel="x"), "title"),
        (lambda out: biarena.judge_check("corgi", judge_model="mock", seeds=2), "seed"),
        (lambda out: biarena.synth("app_store", out, sacle=0.1), "scale"),
        (lambda out: biarena.suite(out, vertical=["app_store"]), "verticals"),
        (lambda out: biarena.generate_templates("shop.db", out, per_categry=2), "per_category"),
        (lambda out: biarena.generate_questions("shop.db", out, methd="template"), "method"),
        (lambda out: biarena.generate_answers("bis-synth", out, limt=2), "limit"),
    ],
)
def test_a_misspelled_keyword_is_one_line_that_suggests_the_name(tmp_path: Path, call: Any, meant: str) -> None:
    with pytest.raises(UsageError) as raised:
        call(tmp_path / "x.run")
    message = str(raised.value)
    assert "\n" not in message and f"did you mean '{meant}'?" in message
    assert "takes no option" in message


def test_a_value_out_of_range_is_said_as_the_flag_says_it(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^--concurrency 0 is out of range: it must be >=1$"):
        biarena.run("bis-synth", agent="gold", out=tmp_path / "x.run", concurrency=0)
    with pytest.raises(UsageError, match=r"^--decimals 16 is out of range: it must be >=0 and <=15$"):
        biarena.score(tmp_path / "x.run", decimals=16)
    assert not (tmp_path / "x.run").exists()
