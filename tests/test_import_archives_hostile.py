"""Hostile archives through `biarena import corgi`: each is refused in one line with exit code 2, nothing is written
outside the import's own folders and nothing is left behind; honest nested and split archives still import."""

import io
import stat
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from biarena.benchmarks import load_benchmark
from biarena.benchmarks.archive import MAX_MEMBERS, MAX_NESTING
from tests.test_cli import assert_user_error
from tests.test_import_corgi_layout import in_process
from tests.test_importers import vertical

pytest.importorskip("openpyxl")

ESCAPE = "escape.db"
"""The file name every path-escaping member aims at."""


def _zip(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]], method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zipped:
        for info, data in members:
            zipped.writestr(info, data)
    return path


def _raw_name(name: str) -> zipfile.ZipInfo:
    """A member whose name is written as given: ZipInfo would turn a Windows separator into '/'."""
    info = zipfile.ZipInfo("placeholder")
    info.filename = name
    info.orig_filename = name
    return info


def _link(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # unix, so the mode bits in external_attr count
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _lying_sizes(data: bytes, declared: int) -> bytes:
    """A zip of `data` (deflated) whose local and central headers both say it holds only `declared` bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("shop.db", data)
    blob = bytearray(buffer.getvalue())
    local = blob.index(b"PK\x03\x04")
    struct.pack_into("<I", blob, local + 22, declared)
    central = blob.index(b"PK\x01\x02")
    struct.pack_into("<I", blob, central + 24, declared)
    return bytes(blob)


def _nested(inner: bytes, depth: int, name: str = "shop") -> bytes:
    """`inner` (a database) zipped, and that zip zipped again, `depth` archives in all."""
    data, member = inner, f"{name}.db"
    for _ in range(depth):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zipped:
            zipped.writestr(member, data)
        data, member = buffer.getvalue(), f"{name}.db.zip"
    return data


Attack = Callable[[Path, bytes], None]


def _one_zip(*members: tuple[zipfile.ZipInfo | str, bytes], method: int = zipfile.ZIP_STORED) -> Attack:
    def build(folder: Path, db: bytes) -> None:
        _zip(folder / "shop.db.zip", [(info, db if data == b"DB" else data) for info, data in members], method)

    return build


def _parts(*names: str) -> Attack:
    def build(folder: Path, db: bytes) -> None:
        half = len(db) // 2
        for number, (name, piece) in enumerate(zip(names, (db[:half], db[half:]), strict=True), start=1):
            _zip(folder / f"shop-part{number}.zip", [(name, piece)])

    return build


def _bytes(make: Callable[[bytes], bytes]) -> Attack:
    def build(folder: Path, db: bytes) -> None:
        (folder / "shop.db.zip").write_bytes(make(db))

    return build


def _many_members(folder: Path, db: bytes) -> None:
    members = [(f"junk/{number}.txt", b"") for number in range(MAX_MEMBERS + 1)]
    _zip(folder / "shop.db.zip", [*members, ("shop.db", db)])


def _many_member_parts(folder: Path, db: bytes) -> None:
    _zip(folder / "shop-part1.zip", [(f"shop.db.{number:06d}", b"") for number in range(MAX_MEMBERS + 1)])
    _zip(folder / "shop-part2.zip", [("shop.db.999999", db)])


ATTACKS: dict[str, tuple[Attack, str]] = {
    # members whose names leave the folder they are extracted into
    "slip-parent": (_one_zip((f"../../../../{ESCAPE}", b"DB")), "leaves the archive"),
    "slip-inner": (_one_zip((f"shop/../../{ESCAPE}", b"DB")), "leaves the archive"),
    "slip-windows": (_one_zip((_raw_name(f"..\\..\\..\\..\\{ESCAPE}"), b"DB")), "leaves the archive"),
    "slip-beside": (_one_zip(("shop.db", b"DB"), (f"../{ESCAPE}", b"x")), "leaves the archive"),
    "slip-parts": (_parts("../../shop.db.001", "shop.db.002"), "leaves the archive"),
    # absolute names
    "absolute-posix": (_one_zip((f"/tmp/{ESCAPE}", b"DB")), "an absolute path"),
    "absolute-drive": (_one_zip((_raw_name(f"C:\\{ESCAPE}"), b"DB")), "an absolute path"),
    "absolute-drive-relative": (_one_zip((_raw_name(f"C:{ESCAPE}"), b"DB")), "an absolute path"),
    "absolute-unc": (_one_zip((_raw_name(f"\\\\server\\share\\{ESCAPE}"), b"DB")), "an absolute path"),
    # links: the member's mode says symbolic link, whatever its bytes hold
    "symlink-to-file": (_one_zip((_link("shop.db"), b"/etc/passwd")), "a symbolic link"),
    "symlink-holding-db": (_one_zip((_link("shop.db"), b"DB")), "a symbolic link"),
    "symlink-beside": (_one_zip(("shop.db", b"DB"), (_link("evil"), b"/etc")), "a symbolic link"),
    # more bytes than the budget: a high ratio, sizes in the headers that lie
    "bomb-ratio": (
        _one_zip(("shop.db", b"SQLite format 3\x00" + bytes(4 * 1024**2)), method=zipfile.ZIP_DEFLATED),
        "expands more than 100 times",
    ),
    "bomb-size": (
        _one_zip(("shop.db", b"SQLite format 3\x00" + bytes(6 * 1000**2)), method=zipfile.ZIP_DEFLATED),
        "larger than max_db_size",
    ),
    "lying-sizes": (_bytes(lambda db: _lying_sizes(db + bytes(8 * 1024**2), 4096)), "cannot be extracted"),
    # more members than the limit
    "many-members": (_many_members, f"more than {MAX_MEMBERS:,} members"),
    "many-member-parts": (_many_member_parts, f"more than {MAX_MEMBERS:,} members"),
    # archives in archives beyond the nesting limit
    "nested-too-deep": (_bytes(lambda db: _nested(db, MAX_NESTING + 2)), f"nested more than {MAX_NESTING} deep"),
}


UNSAFE = {name for name in ATTACKS if not name.startswith(("bomb", "lying"))}
"""Attacks on the importer itself (names that leave, links, too many members, nesting): the whole import stops."""


def _tree(root: Path) -> set[Path]:
    return {path.relative_to(root) for path in root.rglob("*")}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_archive_is_one_line_and_writes_nothing(attack: str, tmp_path: Path, sales_db: Path) -> None:
    build, fragment = ATTACKS[attack]
    folder = vertical(tmp_path / "corgi", "shop", sales_db, "none")
    build(folder, sales_db.read_bytes())
    # the import's temporary folder sits four levels below tmp_path, so a member's ../../../../ lands in tmp_path
    temp = tmp_path / "a" / "b" / "temp"
    temp.mkdir(parents=True)
    out = tmp_path / "out"
    before = _tree(tmp_path)
    result = in_process("import", "corgi", folder, "--max-db-size", "5MB", "-o", out, tmpdir=temp)
    # an archive built to attack is refused with the import; one too large to hold is a vertical skipped
    assert_user_error(result, "the archive is refused" if attack in UNSAFE else "no vertical could be imported (shop:")
    assert fragment in result.stderr, result.stderr
    assert _tree(tmp_path) == before, _tree(tmp_path) ^ before
    assert not out.exists() and list(temp.iterdir()) == []


def test_honest_nested_and_split_archives_still_import(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    data = sales_db.read_bytes()
    for depth in range(1, MAX_NESTING + 1):
        folder = vertical(root, f"nest{depth}", sales_db, "none")
        (folder / f"nest{depth}.db.zip").write_bytes(_nested(data, depth, f"nest{depth}"))
    vertical(root, "cut", sales_db, "split")
    vertical(root, "pieces", sales_db, "zipped-pieces")
    windows = vertical(root, "windows", sales_db, "none")
    _zip(windows / "windows.db.zip", [(_raw_name("data\\windows.db"), data), ("__MACOSX/._windows.db", b"meta")])
    temp = tmp_path / "temp"
    result = in_process("import", "corgi", root, "-o", tmp_path / "out", tmpdir=temp)
    assert result.returncode == 0, result.stderr
    assert "skipped" not in result.stderr, result.stderr
    benchmark = load_benchmark(tmp_path / "out")
    assert set(benchmark.databases) == {*(f"nest{d}" for d in range(1, MAX_NESTING + 1)), "cut", "pieces", "windows"}
    for ref in benchmark.databases.values():
        assert Path(tmp_path / "out" / ref.path).read_bytes() == data
    assert list(temp.iterdir()) == []


def test_a_hostile_vertical_beside_good_ones_stops_the_import(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    vertical(root, "good", sales_db, "zip")
    bad = vertical(root, "shop", sales_db, "none")
    ATTACKS["slip-parent"][0](bad, sales_db.read_bytes())
    result = in_process("import", "corgi", root, "-o", tmp_path / "out", tmpdir=tmp_path / "temp")
    assert_user_error(result, "leaves the archive's folder (..); the archive is refused")
    assert not (tmp_path / "out").exists() and list((tmp_path / "temp").iterdir()) == []


def test_an_archive_too_large_beside_good_ones_is_skipped_saying_why(tmp_path: Path, sales_db: Path) -> None:
    root = tmp_path / "corgi"
    vertical(root, "good", sales_db, "zip")
    bad = vertical(root, "shop", sales_db, "none")
    ATTACKS["bomb-size"][0](bad, sales_db.read_bytes())
    result = in_process("import", "corgi", root, "--max-db-size", "5MB", "-o", tmp_path / "out", tmpdir=tmp_path / "t")
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "skipped" in line]
    assert "vertical 'shop' skipped" in line and "larger than max_db_size" in line
    assert set(load_benchmark(tmp_path / "out").databases) == {"good"}
