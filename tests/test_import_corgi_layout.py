"""CORGI as it is actually published: unusable databases are skipped with a reason, archives are bounded."""

import io
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from unittest.mock import patch

import pytest

from biarena.benchmarks import canonical_vertical, import_corgi, load_benchmark
from biarena.errors import FormatError, NotFoundError
from tests.cli_in_process import cli
from tests.test_cli import assert_user_error
from tests.test_importers import QUESTIONS, vertical, workbook

pytest.importorskip("openpyxl")

INSTALLED = Path(sys.executable).with_name("biarena")


def installed(*args: str | Path, tmpdir: Path) -> subprocess.CompletedProcess:
    """The installed `biarena` command in a fresh process, with its temporary files kept under `tmpdir`."""
    tmpdir.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.run(
        [str(INSTALLED), *map(str, args)], capture_output=True, text=True, timeout=120, env=env, check=False
    )


def in_process(*args: str | Path, tmpdir: Path) -> subprocess.CompletedProcess:
    """The command line inside this process, with its temporary files kept under `tmpdir`."""
    tmpdir.mkdir(exist_ok=True)
    with patch.object(tempfile, "tempdir", str(tmpdir)):
        return cli(*args)


def published_layout(root: Path, db: Path) -> Path:
    """CORGI's repository layout with its two broken verticals: a 2-byte .db.zip and a lone -part3.zip."""
    layout = root / "CORGI" / "databases-and-questions"
    vertical(layout, "app-store", db, "zip")
    vertical(layout, "food-delivery", db, "plain")
    ecommerce = vertical(layout, "e-commerce-enablement", db, "none")
    (ecommerce / "e-commerce-enablement.txt").rename(ecommerce / "e-commerce-enable.txt")
    (ecommerce / "e-commerce-enablement.db.zip").write_bytes(b"\r\n")
    luxury = vertical(layout, "luxury-consignment", db, "split")
    (luxury / "luxury-consignment-part1.zip").unlink()
    (luxury / "luxury-consignment-part2.zip").unlink()
    return root / "CORGI"


def zeros_archive(path: Path, member: str, size: int) -> Path:
    """A zip whose one member is an SQLite header followed by `size` bytes of zeros (compresses ~1000x)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr(member, b"SQLite format 3\x00" + bytes(size))
    return path


def test_published_layout_imports_the_usable_verticals(tmp_path: Path, sales_db: Path) -> None:
    repo = published_layout(tmp_path, sales_db)
    temp = tmp_path / "temp"
    result = installed("import", "corgi", repo, "-o", tmp_path / "out", tmpdir=temp)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, result.stderr
    ecommerce = next(w for w in warnings if "'e-commerce-enablement'" in w)
    assert "e-commerce-enablement.db.zip: not a zip archive (2 bytes)" in ecommerce
    luxury = next(w for w in warnings if "'luxury-consignment'" in w)
    assert "part(s) 1, 2 missing" in luxury and "luxury-consignment-part3.zip" in luxury
    benchmark = load_benchmark(tmp_path / "out")
    assert set(benchmark.databases) == {"app-store", "food-delivery"}
    assert len(benchmark.questions) == 8
    assert list(temp.iterdir()) == []


def test_verticals_by_any_of_their_names(tmp_path: Path, sales_db: Path) -> None:
    repo = published_layout(tmp_path, sales_db)
    result = in_process(
        "import", "corgi", repo, "--verticals", "app_store,Food Delivery", "-o", tmp_path / "out", tmpdir=tmp_path / "t"
    )
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    assert set(load_benchmark(tmp_path / "out").databases) == {"app-store", "food-delivery"}
    result = in_process(
        "import", "corgi", repo, "--verticals", "freelancing", "-o", tmp_path / "o2", tmpdir=tmp_path / "t"
    )
    assert_user_error(result, "no vertical 'freelancing'")
    assert canonical_vertical("freelancing-marketplace") == "freelancing"
    assert canonical_vertical("e-commerce-enablement") == "ecommerce_enablement"
    assert canonical_vertical("clothing-e-commerce") == "clothing_ecommerce"
    assert canonical_vertical("app-store") == canonical_vertical("App_Store") == "app_store"
    assert canonical_vertical("no-such-vertical") is None


def test_synth_and_suite_accept_corgi_folder_names(tmp_path: Path) -> None:
    from biarena.synth import vertical_spec

    assert vertical_spec("freelancing-marketplace").name == "freelancing"
    assert vertical_spec("app-store").name == "app_store"
    with pytest.raises(NotFoundError, match="unknown vertical"):
        vertical_spec("app-shop")
    twice = cli("suite", "corgi", "--verticals", "app-store,app_store", "-o", tmp_path / "suite")
    assert_user_error(twice, "names one vertical twice: app_store, app_store")


def test_no_usable_vertical_is_one_line(tmp_path: Path, sales_db: Path) -> None:
    folder = vertical(tmp_path / "c", "shop", sales_db, "none")
    (folder / "shop.db.zip").write_bytes(b"PK")
    result = in_process("import", "corgi", folder, "-o", tmp_path / "out", tmpdir=tmp_path / "t")
    assert_user_error(result, "no vertical could be imported (shop:")
    assert not (tmp_path / "out").exists()


def test_zip_bomb_stops_at_the_size_budget(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    vertical(root, "shop", sales_db, "plain")
    bomb = vertical(root, "bomb", sales_db, "none")
    zeros_archive(bomb / "bomb.db.zip", "bomb.db", 3 * 1000**2)
    temp = tmp_path / "temp"
    result = in_process("import", "corgi", root, "--max-db-size", "1MB", "-o", tmp_path / "out", tmpdir=temp)
    assert result.returncode == 0, result.stderr
    assert "warning: vertical 'bomb' skipped" in result.stderr
    assert "larger than max_db_size 1MB" in result.stderr
    assert list(temp.iterdir()) == []
    assert set(load_benchmark(tmp_path / "out").databases) == {"shop"}


def test_zip_bomb_within_the_budget_fails_the_ratio_check(tmp_path: Path, sales_db: Path, monkeypatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    root = tmp_path / "corgi"
    vertical(root, "shop", sales_db, "plain")
    bomb = vertical(root, "bomb", sales_db, "none")
    zeros_archive(bomb / "bomb.db.zip", "bomb.db", 8 * 1024**2)
    with import_corgi(root) as imported:
        assert "expands more than 100 times" in imported.skipped["bomb"]
        assert set(imported.benchmark.databases) == {"shop"}
    assert list((tmp_path / "temp").iterdir()) == []


def test_split_parts_of_zeros_are_refused(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    vertical(root, "shop", sales_db, "plain")
    zeros = vertical(root, "zeros", sales_db, "none")
    for number in (1, 2):
        with zipfile.ZipFile(zeros / f"zeros-part{number}.zip", "w", zipfile.ZIP_DEFLATED) as zipped:
            zipped.writestr(f"zeros.db.{number:03d}", bytes(4 * 1024**2))
    with import_corgi(root) as imported:
        assert "expands more than 100 times" in imported.skipped["zeros"]
    # within the ratio, a join that is not a database is refused by its header
    small = vertical(root, "small", sales_db, "none")
    for number in (1, 2):
        with zipfile.ZipFile(small / f"small-part{number}.zip", "w") as zipped:
            zipped.writestr(f"small.db.{number:03d}", os.urandom(1000))
    with import_corgi(root, verticals=["small"]) as imported:
        assert "not an SQLite database" in imported.skipped["small"]


def test_a_database_that_is_not_sqlite_or_links_out_is_skipped(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    vertical(root, "shop", sales_db, "plain")
    text = vertical(root, "text", sales_db, "none")
    (text / "text.db").write_text("id,name\n1,a\n", encoding="utf-8")
    lfs = vertical(root, "lfs", sales_db, "none")
    (lfs / "lfs.db").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n")
    linked = vertical(root, "linked", sales_db, "none")
    (linked / "linked.db").symlink_to(sales_db)  # a real database, but outside the folder given
    result = in_process("import", "corgi", root, "-o", tmp_path / "out", tmpdir=tmp_path / "t")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert any("'text' skipped" in line and "not an SQLite database" in line for line in lines), result.stderr
    assert any("'lfs' skipped" in line and "Git LFS pointer" in line for line in lines), result.stderr
    assert any("'linked' skipped" in line and "is a link to" in line for line in lines), result.stderr
    assert set(load_benchmark(tmp_path / "out").databases) == {"shop"}
    assert sorted(p.name for p in (tmp_path / "out" / "databases").iterdir()) == ["shop.db"]


def test_a_failed_import_leaves_no_temporary_files(tmp_path: Path, sales_db: Path, monkeypatch) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    root = tmp_path / "corgi"
    vertical(root, "a-zipped", sales_db, "zip")
    broken = vertical(root, "b-broken", sales_db, "plain")
    (broken / "b-broken-questions.xlsx").write_bytes(b"not a workbook")
    with pytest.raises(FormatError, match="not a readable xlsx"), import_corgi(root):
        pass
    assert list(temp.iterdir()) == []


def test_repeated_numbers_are_refused(tmp_path: Path, sales_db: Path) -> None:
    folder = vertical(tmp_path / "c", "shop", sales_db, "plain")
    workbook(folder / "shop-questions.xlsx", {**QUESTIONS, "type3": [(1, "Next month?"), (1, "Next year?")]})
    result = in_process("import", "corgi", folder, "-o", tmp_path / "out", tmpdir=tmp_path / "t")
    assert_user_error(result, "sheet 'type3' row 3: Number 1 repeats row 2")


def test_several_databases_in_one_archive(tmp_path: Path, sales_db: Path) -> None:
    folder = vertical(tmp_path / "c", "shop", sales_db, "none")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("__MACOSX/._shop.db", b"mac metadata")
        zipped.writestr("other.db", b"x")
        zipped.writestr("shop.db", sales_db.read_bytes())
    (folder / "shop.db.zip").write_bytes(buffer.getvalue())
    with import_corgi(folder) as imported:
        assert Path(imported.benchmark.databases["shop"].path).read_bytes() == sales_db.read_bytes()
