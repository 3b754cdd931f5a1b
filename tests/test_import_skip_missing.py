"""`import bird|spider|spider2-lite --skip-missing` imports the questions whose database is present and counts the
others; without it a missing database (or database folder) is one line naming the option that helps."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from tests.cli_in_process import cli
from tests.published_layouts import bird_layout, spider2_lite_layout, spider_layout

LAYOUTS: dict[str, tuple[Callable[[Path], Path], str, int]] = {
    "bird": (bird_layout, "dev_databases/club", 3),
    "spider": (spider_layout, "database/club", 3),
    "spider2-lite": (spider2_lite_layout, "resource/databases/spider2-localdb/club.sqlite", 2),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_skip_missing_imports_the_questions_whose_database_is_present(name: str, tmp_path: Path) -> None:
    layout, club, kept = LAYOUTS[name]
    root = layout(tmp_path / "layout")
    removed = root / club
    shutil.rmtree(removed) if removed.is_dir() else removed.unlink()

    refused = cli("import", name, root, "-o", tmp_path / "refused")
    assert refused.returncode == 2
    assert "unknown database 'club'" in refused.stderr and "--skip-missing imports the questions" in refused.stderr

    done = cli("import", name, root, "-o", tmp_path / "bench", "--skip-missing")
    assert done.returncode == 0, done.stderr
    assert "skipped 1 question whose database is missing: club (1 database)" in done.stderr
    benchmark = load_benchmark(tmp_path / "bench")
    assert len(benchmark.questions) == kept and set(benchmark.databases) == {"shop"}


def test_skip_missing_with_no_database_present_and_elsewhere(tmp_path: Path) -> None:
    root = bird_layout(tmp_path / "bird")
    shutil.rmtree(root / "dev_databases")
    (root / "dev_databases").mkdir()
    nothing = cli("import", "bird", root, "-o", tmp_path / "none", "--skip-missing")
    assert nothing.returncode == 2 and "no question's database is present" in nothing.stderr
    shutil.rmtree(root / "dev_databases")
    no_folder = cli("import", "bird", root, "-o", tmp_path / "none")
    assert no_folder.returncode == 2 and "point to the databases with -O databases=DIR" in no_folder.stderr
    other = cli("import", "bis", "../shared/external/bis-sample", "-o", tmp_path / "bis", "--skip-missing")
    assert other.returncode == 2 and "--skip-missing applies to bird, spider, spider2-lite" in other.stderr
