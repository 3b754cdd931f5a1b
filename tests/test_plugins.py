"""Plugins: a package seen only through its entry points (a dist-info on a subprocess's path, never installed into
the environment the tests share) adds an agent, a scorer, an importer and a contract that the command line and the
Python API use; a name that clashes with a built-in is refused, and a plugin that fails to import is reported while
every other command still works."""

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme-biarena"
"""The example plugin package that docs/plugins.md shows."""

SQL = "SELECT city, SUM(amount) FROM sales GROUP BY city"


def make_site(root: Path, groups: dict[str, dict[str, str]] | None = None) -> Path:
    """A folder holding the example package and its dist-info (METADATA, entry_points.txt), as pip would install it:
    the entry points are the example's pyproject ones, or `groups`."""
    site = root / "site"
    shutil.copytree(EXAMPLE / "src" / "acme_biarena", site / "acme_biarena")
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    points = groups if groups is not None else project["entry-points"]
    info = site / f"acme_biarena-{project['version']}.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8"
    )
    text = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items()) + "\n" for group, names in points.items()
    )
    info.joinpath("entry_points.txt").write_text(text, encoding="utf-8")
    return site


def biarena(site: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """`biarena ARGS` in a process of its own whose path holds `site`."""
    return subprocess.run(
        [sys.executable, "-m", "biarena", *map(str, args)], capture_output=True, text=True, env=env(site)
    )


def python(site: Path, code: str) -> subprocess.CompletedProcess:
    """Python `code` in a process of its own whose path holds `site`."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(site))


def env(site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "src")]), "NO_COLOR": "1"}


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    """An acme-csv folder: three questions over a small sales database."""
    folder = tmp_path / "sheet"
    folder.mkdir()
    with sqlite3.connect(folder / "data.sqlite") as db:
        db.execute("CREATE TABLE sales (city TEXT, amount INTEGER)")
        db.executemany("INSERT INTO sales VALUES (?, ?)", [("Oslo", 3), ("Lima", 5), ("Oslo", 4), ("Pune", 1)])
    rows = [
        ("id", "question", "sql"),
        ("q1", "Sales by city?", f"{SQL} ORDER BY 2 DESC"),
        ("q2", "How many sales?", "SELECT COUNT(*) FROM sales"),
        ("q3", "Sales per city?", SQL),
    ]
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return folder


def one_line(result: subprocess.CompletedProcess) -> str:
    """The single line a refused command prints (exit 2, no traceback)."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_a_plugin_adds_an_agent_a_scorer_an_importer_and_a_contract(tmp_path: Path, sheet: Path) -> None:
    site = make_site(tmp_path)
    bench, run = tmp_path / "bench", tmp_path / "constant.run"

    imported = biarena(site, "import", "acme-csv", sheet, "-o", bench, "-O", "language=en")
    assert imported.returncode == 0, imported.stderr
    assert "imported 3 questions over 1 database(s)" in imported.stderr
    listed = biarena(site, "describe", "agent")
    assert "constant" in listed.stdout and "(plugin from acme-biarena)" in listed.stdout
    assert "sql" in biarena(site, "describe", "agent", "constant").stdout
    assert "acme-loose" in biarena(site, "describe", "contract").stdout

    ran = biarena(site, "run", bench, "--agent", "constant", "-O", f"sql={SQL}", "-o", run)
    assert ran.returncode == 0, ran.stderr
    scored = biarena(site, "score", run, "--scorer", "sql_words", "--scorer", "execution_accuracy[acme-loose]")
    assert scored.returncode == 0, scored.stderr
    shown = biarena(site, "show", run, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    overall = json.loads(shown.stdout)["runs"][0]["overall"]["scores"]
    # 8 words each; the loose contract takes q1's rows in another order and q3's as they are, but not q2's count
    assert overall["sql_words"] == pytest.approx(8.0)
    assert overall["execution_accuracy[acme-loose]"] == pytest.approx(2 / 3)
    assert "SQL words" in biarena(site, "show", run).stdout  # the plugin's score declaration, read back

    typo = one_line(biarena(site, "run", bench, "--agent", "constnt", "-o", tmp_path / "typo.run"))
    assert "unknown agent 'constnt'" in typo and "did you mean 'constant'" in typo

    code = f"""
import json
import biarena

biarena.import_benchmark("acme-csv", {str(sheet)!r}, {str(tmp_path / "bench2")!r}, options={{"language": "en"}})
run = biarena.run({str(tmp_path / "bench2")!r}, agent="constant", out={str(tmp_path / "api.run")!r},
                  options={{"sql": {SQL!r}}})
biarena.score(run, scorers=["sql_words", "execution_accuracy[acme-loose]"])
rows = biarena.results(run)
print(json.dumps({{"words": rows["sql_words"].tolist(), "ex": rows["execution_accuracy[acme-loose]"].tolist()}}))
"""
    api = python(site, code)
    assert api.returncode == 0, api.stderr
    made = json.loads(api.stdout.strip().splitlines()[-1])
    assert made["words"] == [8.0, 8.0, 8.0] and sorted(made["ex"]) == [0.0, 1.0, 1.0]


def test_a_plugin_name_that_clashes_with_a_builtin_is_refused_naming_both_packages(tmp_path: Path) -> None:
    site = make_site(tmp_path, {"biarena.agents": {"gold": "acme_biarena.agent:ConstantAgent"}})
    line = one_line(biarena(site, "describe", "agent"))
    assert "agent 'gold'" in line and "package 'acme-biarena'" in line and "package 'biarena'" in line
    # the built-in is found by its name without reading the plugins: runs of it are unaffected
    assert biarena(site, "describe", "agent", "gold").returncode == 0


def test_a_plugin_that_fails_to_import_is_reported_and_every_other_command_works(tmp_path: Path, sheet: Path) -> None:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {group: dict(names) for group, names in project["entry-points"].items()}
    groups["biarena.agents"]["broken"] = "acme_biarena.not_there:Agent"
    groups["biarena.scorers"]["shaky"] = "acme_biarena.not_there:Scorer"
    groups["biarena.importers"]["flaky"] = "acme_biarena.not_there:importer"
    site = make_site(tmp_path, groups)
    listed = biarena(site, "describe", "agent")
    assert listed.returncode == 0, listed.stderr
    assert "gold" in listed.stdout and "constant" in listed.stdout and "broken" not in listed.stdout
    warning = listed.stderr.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: agent 'broken' of package 'acme-biarena'")
    assert "ModuleNotFoundError" in warning[0]

    bench, run = tmp_path / "bench", tmp_path / "gold.run"
    imported = biarena(site, "import", "acme-csv", sheet, "-o", bench)
    assert imported.returncode == 0, imported.stderr
    assert "warning: importer 'flaky' of package 'acme-biarena' cannot be loaded" in imported.stderr
    ran = biarena(site, "run", bench, "--agent", "gold", "-o", run)
    assert ran.returncode == 0, ran.stderr
    scored = biarena(site, "score", run)
    assert scored.returncode == 0 and "Traceback" not in scored.stderr, scored.stderr
    assert biarena(site, "show", run).returncode == 0
    assert biarena(site, "describe", "scorer").returncode == 0
    line = one_line(biarena(site, "run", bench, "--agent", "broken", "-o", tmp_path / "b.run"))
    assert "agent 'broken' of package 'acme-biarena' cannot be loaded" in line and "ModuleNotFoundError" in line
