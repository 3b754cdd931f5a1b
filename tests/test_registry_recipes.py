"""CONTRIBUTING's recipes for a model provider, a database engine, a built-in benchmark and a vertical: one file
(tests/toy_*.py, or a spec file) plus one registry line, used through the command line and the Python API.

The registry line is added here in process (`REGISTRY[name] = "module:Class"`), as a line in the registry's source
would add it; the agent, scorer, importer and contract recipes are proven through entry points (test_plugins.py)."""

import re
import shutil
from pathlib import Path

import pytest

import biarena
from biarena.benchmarks import BUILTINS
from biarena.db import ENGINES
from biarena.llm import PROVIDERS
from biarena.registry import import_target
from biarena.runner import RunStore
from biarena.synth import VERTICALS, vertical_spec
from biarena.synth.corgi_figures import corgi
from tests.cli_in_process import cli
from tests.run_helpers import make_shop
from tests.toy_provider import QUERY

ROOT = Path(__file__).resolve().parents[1]


def answers(run: Path) -> dict[str, str | None]:
    """Question id -> the final SQL of its answer."""
    with RunStore(run) as store:
        return {a.question_id: a.final_sql for a in store.answers()}


def test_a_model_provider_is_one_file_and_one_line(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(PROVIDERS, "fixed", "tests.toy_provider:FixedProvider")
    shop = make_shop(tmp_path, sales_db, count=2)
    ran = cli("run", shop, "--agent", "text2sql", "--model", "fixed:any", "--no-cache", "-o", tmp_path / "cli.run")
    assert ran.returncode == 0, ran.stderr
    assert set(answers(tmp_path / "cli.run").values()) == {QUERY}
    api = biarena.run(shop, agent="text2sql", model="fixed", out=tmp_path / "api.run", no_cache=True)
    assert set(answers(api).values()) == {QUERY}
    assert "fixed" in cli("describe", "model").stdout


def test_a_database_engine_is_one_file_and_one_line(
    tmp_path: Path, sales_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ENGINES, "labelled", "tests.toy_engine:LabelledSqlite")
    shop = make_shop(tmp_path, sales_db, count=2)
    url = f"labelled:///{sales_db}"
    ran = cli("run", shop, "--agent", "gold", "--db-url", url, "-o", tmp_path / "cli.run")
    assert ran.returncode == 0, ran.stderr
    assert "2 ran, 0 SQL failed" in ran.stderr
    api = biarena.run(shop, agent="gold", out=tmp_path / "api.run", db_url=[url])
    assert all(answers(api).values())
    assert "labelled" in cli("describe", "engine").stdout


def test_a_builtin_benchmark_is_one_file_and_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BUILTINS, "tiny", "tests.toy_benchmark:build_tiny")
    built = cli("build", "tiny", "-o", tmp_path / "cli", "-O", "questions=3")
    assert built.returncode == 0, built.stderr
    assert len(biarena.load_benchmark(tmp_path / "cli").questions) == 3
    api = biarena.build("tiny", tmp_path / "api", questions=1)
    assert len(biarena.load_benchmark(api).questions) == 1
    listed = cli("describe", "benchmark", "tiny")
    assert "questions" in listed.stdout


def test_a_vertical_is_one_file_and_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = tmp_path / "tiny_rental.yaml"
    shutil.copy(ROOT / "src" / "biarena" / "synth" / "verticals" / "car_rental.yaml", spec)
    # in biarena's source the file goes in synth/verticals/ and the line reads
    # "NAME": ("biarena.synth:verticals/NAME.yaml", corgi(TABLES, COLUMNS_PER_TABLE, FOREIGN_KEYS))
    monkeypatch.setitem(VERTICALS, "tiny_rental", (str(spec), corgi(30, 6.1, 61)))
    listed = cli("synth", "list")
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if "tiny_rental" in line)
    figures = vertical_spec("tiny_rental").figures()
    assert f"{figures.columns_per_table} (6.1)" in line and f"{figures.foreign_keys} (61)" in line
    assert "tiny_rental" in cli("describe", "vertical").stdout
    made = cli("synth", "make", "tiny_rental", "--scale", "0.01", "-o", tmp_path / "cli.sqlite")
    assert made.returncode == 0, made.stderr
    assert figures == vertical_spec("car_rental").figures()
    api = biarena.synth("tiny_rental", tmp_path / "api.sqlite", scale=0.01)
    assert api.is_file()


def test_every_registry_is_listed_by_describe_and_in_contributing() -> None:
    from biarena.cli.describe_cmd import KINDS

    declared = re.compile(r"^([A-Z_]+): Registry\[.*\] = Registry\(", re.MULTILINE)
    source = ROOT / "src" / "biarena"
    found = {
        (".".join(path.relative_to(source.parent).with_suffix("").parts).removesuffix(".__init__"), name, path)
        for path in source.rglob("*.py")
        for name in declared.findall(path.read_text(encoding="utf-8"))
    }
    listed = [KINDS[kind] for kind in KINDS]
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert len(found) >= 12
    for module, name, path in found:
        if (module, name) in {("biarena.cli.describe_cmd", "KINDS"), ("biarena.cli.group", "COMMANDS")}:
            continue  # the kinds themselves, and the commands (listed by --help)
        registry = import_target(f"{module}:{name}")
        assert any(registry is kind for kind in listed), f"{module}:{name} is not a kind `describe` lists"
        assert f"`{path.relative_to(source).as_posix()}`" in contributing, f"{path} is not in CONTRIBUTING's table"
