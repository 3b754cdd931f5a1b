"""YAML with aliases: a few legitimate ones load, an alias bomb (in models.yaml for `run`, in a plan for `campaign`) is
one line and exit code 2 while the process stays small, and every YAML the tool reads goes through load_yaml."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from biarena.errors import FormatError
from biarena.yaml_load import ALIAS_EXPANSION_LIMIT, load_yaml
from tests.run_helpers import BIARENA, make_shop

SRC = Path(__file__).resolve().parents[1] / "src" / "biarena"
PEAK_KB = 300 * 1024


def bomb(levels: int = 9, indent: str = "") -> str:
    """Nested lists of ten aliases each, `levels` deep: ten to the `levels` copies of one word."""
    lines = [f"{indent}l0: &l0 [{', '.join(['lol'] * 10)}]"]
    lines += [f"{indent}l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_a_few_aliases_and_merge_keys_load() -> None:
    text = (
        "defaults: &defaults {temperature: 0.2, extra_body: {top_k: 20}}\n"
        "agent: {<<: *defaults, model: mock}\n"
        "judge: {<<: *defaults, model: mock, temperature: 0}\n"
        "both: [*defaults, *defaults]\n"
    )
    data = load_yaml(text, "models.yaml")
    assert data["agent"] == {"temperature": 0.2, "extra_body": {"top_k": 20}, "model": "mock"}
    assert data["judge"]["temperature"] == 0 and data["both"] == [data["defaults"]] * 2


def test_a_document_as_large_as_the_limit_without_aliases_loads() -> None:
    text = "rows:\n" + "".join(f"  - {'x' * 100}\n" for _ in range(ALIAS_EXPANSION_LIMIT // 100 + 10))
    assert len(load_yaml(text, "big.yaml")["rows"]) == ALIAS_EXPANSION_LIMIT // 100 + 10


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (bomb(), "YAML aliases expand the document by more than 1,000,000"),
        (bomb(40), "YAML aliases expand"),  # ten to the fortieth: measured, never built
        ("big: &big " + "y" * 100_000 + "\ncopies: [" + ", ".join(["*big"] * 20) + "]\n", "YAML aliases expand"),
        ("loop: &loop [1, *loop]\n", "an alias refers to a node that contains it"),
        ("a: [1, 2\n", "line 2: invalid YAML"),
    ],
)
def test_a_document_that_cannot_be_loaded_is_one_format_error(text: str, fragment: str) -> None:
    with pytest.raises(FormatError, match=re.escape(fragment)) as caught:
        load_yaml(text, "plan.yaml")
    assert str(caught.value).startswith("plan.yaml") and "\n" not in str(caught.value)


def test_every_yaml_read_in_src_goes_through_load_yaml() -> None:
    direct = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load|load_all|safe_load_all|compose|compose_all)\b")
    loaders = re.compile(r"\b(Safe|Full|Unsafe|C|CSafe|CFull)?Loader\(")
    found = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for path in SRC.rglob("*.py")
        if path.name != "yaml_load.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if direct.search(line) or loaders.search(line)
    ]
    assert not found, "read YAML with biarena.yaml_load.load_yaml:\n" + "\n".join(found)


def _peak(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, int]:
    """Run `biarena ARGS` under a fresh Python that reports its one child's peak resident size (KB)."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
        "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stderr.write(done.stderr)\n"
        "sys.exit(done.returncode)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(BIARENA), *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    return done, int(done.stdout)


def _one_line(done: subprocess.CompletedProcess, fragment: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], done.stderr


def test_an_alias_bomb_in_models_yaml_stops_run_at_once(tmp_path: Path, sales_db: Path) -> None:
    shop = make_shop(tmp_path, sales_db, count=2)
    (tmp_path / "models.yaml").write_text("bomb:\n  model: mock\n  extra_body:\n" + bomb(indent="    "))
    done, peak = _peak(["run", str(shop), "--agent", "text2sql", "--model", "bomb", "-o", "b.run"], tmp_path)
    _one_line(done, "models.yaml: YAML aliases expand the document")
    assert peak < PEAK_KB, f"peak resident size {peak // 1024} MB"
    assert not (tmp_path / "b.run").exists()


def test_an_alias_bomb_in_a_plan_stops_campaign_at_once(tmp_path: Path, sales_db: Path) -> None:
    make_shop(tmp_path, sales_db, count=2)
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "matrix: {benchmarks: [shop], systems: [gold]}\n"
        "judge_model:\n  model: mock\n  options:\n    extra_body:\n" + bomb(indent="      ")
    )
    done, peak = _peak(["campaign", str(plan), "-o", "out"], tmp_path)
    _one_line(done, "plan.yaml: YAML aliases expand the document")
    assert peak < PEAK_KB, f"peak resident size {peak // 1024} MB"
    assert not (tmp_path / "out").exists()


def test_a_models_file_and_a_plan_with_shared_settings_load(tmp_path: Path) -> None:
    from biarena.campaign.plan import load_plan
    from biarena.llm.model_options import read_models_file

    models = tmp_path / "models.yaml"
    models.write_text(
        "defaults: &defaults {timeout: 300, extra_body: {top_k: 20}}\n"
        "agent: {<<: *defaults, model: mock}\n"
        "judge: {<<: *defaults, model: mock, timeout: 30}\n"
    )
    named = read_models_file(models)
    assert named["agent"]["extra_body"] == {"top_k": 20} and named["judge"]["timeout"] == 30
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "matrix: {benchmarks: [shop, mart], systems: [gold]}\n"
        "cells:\n  - {match: {benchmark: shop}, limit: &few 2}\n  - {match: {benchmark: mart}, limit: *few}\n"
    )
    assert [cell.limit for cell in load_plan(plan).cells] == [2, 2]
