"""The docs: a README a newcomer reads in minutes, a site that builds strictly, a CLI reference that is not stale."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_is_short_and_links_only_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 10_240
    assert 'python3 -m pip install -e ".[all]" && biarena demo' in readme and "bash scripts/test" in readme
    for target in __import__("re").findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme):
        assert (ROOT / target).exists(), target


def test_the_cli_reference_is_written_from_the_commands_help() -> None:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
        capture_output=True, text=True, env=environment, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in ("biarena run", "biarena score", "biarena generate templates", "biarena arena serve"):
        assert f"\n## {command}\n" in reference or f"\n### {command}\n" in reference or f"#### {command}\n" in reference


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs (the docs extra) is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "cli" / "index.html").is_file()


def test_the_readme_tour_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The five-minute tour, command by command, on the mock model (the arena is served elsewhere in the tests)."""
    import shlex

    from tests.cli_in_process import cli

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## A five-minute tour", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    ran = []
    for line in block.splitlines():
        for command in " ".join(shlex.split(line, comments=True)).split(" && "):
            words = ["mock" if word == "local" else word for word in shlex.split(command)]
            if not words or words[:3] == ["biarena", "arena", "serve"]:
                continue
            assert words[0] == "biarena", command
            result = cli(*words[1:])
            assert result.returncode == 0, (command, result.stderr)
            ran.append(words[1])
    assert ran.count("score") == 3 and {"build", "run", "show", "export", "report", "arena"} <= set(ran)
    assert (tmp_path / "report.html").is_file() and (tmp_path / "seq.parquet").is_file()
