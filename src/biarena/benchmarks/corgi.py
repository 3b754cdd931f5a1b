"""Importer for CORGI's published layout: a folder per vertical with questions (xlsx), database, description."""

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biarena.benchmarks.anchor import Now, anchor_benchmark
from biarena.benchmarks.archive import (
    DEFAULT_MAX_DB_SIZE,
    Budget,
    Size,
    UnsafeArchive,
    check_sqlite,
    extract_database,
    join_parts,
)
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.json_file import read_text
from biarena.benchmarks.paths import confined, regular_file
from biarena.benchmarks.shown import shown
from biarena.benchmarks.verticals import same_vertical
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question

SHEETS = ("type2", "type3", "type4")
_SEARCH_DEPTH = 2
"""How far below the given folder verticals are looked for (CORGI's repository keeps them one level down)."""


class CorgiOptions(ImportOptions):
    """Options of the CORGI importer."""

    verticals: list[str] | None = None
    """Only these verticals: biarena's names (app_store), hyphenated ones (app-store) or CORGI's folder names."""
    max_db_size: Size = DEFAULT_MAX_DB_SIZE
    """Largest database an archive may expand to (a 100x expansion limit holds too)."""


@dataclass
class CorgiImport:
    """The imported benchmark, and what could not be imported: vertical -> why (its database is unusable)."""

    benchmark: Benchmark
    skipped: dict[str, str] = field(default_factory=dict)


def _openpyxl():
    try:
        import openpyxl
    except ImportError:
        raise UsageError("importing CORGI needs: pip install 'biarena[corgi]'") from None
    return openpyxl


def read_questions(path: Path) -> list[tuple[str, str, str]]:
    """(sheet, number, question) from a CORGI questions workbook; FormatError names sheet and row."""
    openpyxl = _openpyxl()
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many kinds for a broken file
        raise FormatError(f"{path}: not a readable xlsx workbook ({type(error).__name__}: {error})") from None
    try:
        return _sheet_questions(book, path)
    except FormatError:
        raise
    except Exception as error:  # a workbook whose parts are broken fails only when its rows are read
        raise FormatError(f"{path}: not a readable xlsx workbook ({type(error).__name__}: {error})") from None
    finally:
        book.close()


def _cell(row: tuple, index: int) -> object:
    return row[index] if index < len(row) else None


def _sheet_questions(book, path: Path) -> list[tuple[str, str, str]]:
    found = []
    names = {name.lower(): name for name in book.sheetnames}
    for sheet in SHEETS:
        if sheet not in names:
            continue
        rows = book[names[sheet]].iter_rows(values_only=True)
        header = next(rows, None)
        columns = {str(h).strip().lower(): i for i, h in enumerate(header or []) if h is not None}
        for needed in ("number", "question"):
            if needed not in columns:
                raise FormatError(
                    f"{path} sheet '{names[sheet]}': no '{needed.title()}' column "
                    f"(columns: {', '.join(str(h) for h in header or [] if h is not None) or 'none'})"
                )
        seen: dict[str, int] = {}
        for row_number, row in enumerate(rows, start=2):
            number, text = _cell(row, columns["number"]), _cell(row, columns["question"])
            if number is None and text is None:
                continue
            if number is None or not str(text or "").strip() or not str(number).strip():
                raise FormatError(f"{path} sheet '{names[sheet]}' row {row_number}: missing Number or Question")
            number = str(int(number)) if isinstance(number, float) and number.is_integer() else str(number).strip()
            if number in seen:
                raise FormatError(
                    f"{path} sheet '{names[sheet]}' row {row_number}: Number {number} repeats row {seen[number]}"
                )
            seen[number] = row_number
            found.append((sheet, number, str(text).strip()))
    if not found:
        raise FormatError(f"{path}: no questions in sheets {', '.join(SHEETS)}")
    return found


def locate_database(root: Path, folder: Path, name: str, workdir: Path, max_db_size: int) -> Path | None:
    """The vertical's SQLite file: `<name>.db`, `<name>.db.zip`, or `<name>-part1.zip` … `partN.zip`.

    None when there is none; FormatError (naming the file) when the one there is unusable. Archives are
    extracted into `workdir` under `max_db_size`, and whatever comes out must be an SQLite database.
    """
    plain = folder / f"{name}.db"
    if plain.exists() or plain.is_symlink():
        source = regular_file(confined(root, plain, str(plain)), str(plain))
        return check_sqlite(source, str(plain))
    target = workdir / f"{name}.db"
    zipped = folder / f"{name}.db.zip"
    if zipped.exists() or zipped.is_symlink():
        archive = regular_file(confined(root, zipped, str(zipped)), str(zipped))
        extract_database(archive, target, Budget(max_db_size, str(zipped)), prefer=name)
        return check_sqlite(target, str(zipped))
    part = re.compile(re.escape(name) + r"-part(\d+)\.zip", re.I)
    parts = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := part.fullmatch(p.name)))
    if not parts:
        return None
    numbers = [n for n, _ in parts]
    if numbers != list(range(1, len(parts) + 1)):
        missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
        found = ", ".join(p.name for _, p in parts)
        what = f"part(s) {', '.join(map(str, missing))} missing" if missing else "parts numbered twice"
        raise FormatError(f"{folder}: split database incomplete: {what} (found {found})")
    paths = [regular_file(confined(root, p, str(p)), str(p)) for _, p in parts]
    source = f"{folder / name}-part1..{len(parts)}.zip"
    join_parts(paths, target, Budget(max_db_size, source), workdir)
    return check_sqlite(target, source)


def _vertical_name(folder: Path) -> str | None:
    books = sorted(p for p in folder.glob("*-questions.xlsx") if not p.name.startswith(("~$", ".")))
    if len(books) > 1:
        names = [b.name[: -len("-questions.xlsx")] for b in books]
        matching = [n for n in names if same_vertical(n, folder.name)]
        return matching[0] if matching else names[0]
    return books[0].name[: -len("-questions.xlsx")] if books else None


def vertical_folders(root: Path) -> list[Path]:
    """Folders holding a `<name>-questions.xlsx`: `root` itself, or the nearest level below it that has any."""
    if _vertical_name(root):
        return [root]
    level = [root]
    for _ in range(_SEARCH_DEPTH):
        below = [
            child
            for folder in level
            for child in sorted(folder.iterdir())
            if child.is_dir() and not child.name.startswith((".", "__"))
        ]
        found = [child for child in below if _vertical_name(child)]
        if found:
            return found
        level = below
    return []


def _select(folders: list[Path], verticals: list[str] | None, root: Path) -> list[Path]:
    if not verticals:
        return folders
    named = {folder: _vertical_name(folder) or folder.name for folder in folders}
    chosen: list[Path] = []
    for wanted in verticals:
        hits = [f for f, name in named.items() if same_vertical(wanted, name) or same_vertical(wanted, f.name)]
        if not hits:
            raise UsageError(
                f"verticals: no vertical '{shown(wanted)}' in {root} (found: {', '.join(sorted(named.values()))})"
            )
        chosen += [f for f in hits if f not in chosen]
    return chosen


@takes(CorgiOptions)
@contextmanager
def import_corgi(path: str | Path, options: CorgiOptions | None = None, **values: Any) -> Iterator[CorgiImport]:
    """Import CORGI (<name>-questions.xlsx, <name>.db / .db.zip / -partN.zip, description .txt): a vertical folder,
    a folder of them, or CORGI's repository; a vertical whose database is missing or unusable is skipped, saying why.

    The import lasts while the `with` block does: archived databases are extracted to a temporary directory that is
    removed when the block ends, however it ends, so save the benchmark inside the block. `skipped` says why each
    skipped vertical was; a broken questions workbook is a FormatError.
    """
    chosen = CorgiOptions.resolve(options, values, "importer 'corgi'")
    now, max_db_size, verticals = chosen.now, chosen.max_db_size, chosen.verticals
    root = Path(path)
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such directory")
    folders = _select(vertical_folders(root), verticals, root)
    if not folders:
        raise NotFoundError(f"{root}: no <name>-questions.xlsx here or in its subfolders")
    workdir = Path(tempfile.mkdtemp(prefix="biarena-corgi-"))
    try:
        yield _read_verticals(root, folders, workdir, max_db_size, now)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _read_verticals(root: Path, folders: list[Path], workdir: Path, max_db_size: int, now: Now | str) -> CorgiImport:
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    knowledge: list[str] = []
    skipped: dict[str, str] = {}
    for folder in folders:
        name = _vertical_name(folder)
        assert name is not None
        if name in databases or name in skipped:
            raise FormatError(f"{folder}: a second vertical named '{name}'")
        book = folder / f"{name}-questions.xlsx"
        rows = read_questions(regular_file(confined(root, book, str(book)), str(book)))
        try:
            database = locate_database(root, folder, name, workdir, max_db_size)
        except UnsafeArchive:
            raise  # an archive built to attack the importer stops the import, whatever else it holds
        except FormatError as error:
            skipped[name] = str(error)
            continue
        if database is None:
            skipped[name] = f"{folder}: no {name}.db, {name}.db.zip or {name}-part1.zip"
            continue
        texts = [confined(root, t, str(t)) for t in sorted(folder.glob("*.txt")) if not t.name.startswith(".")]
        description = "\n".join(read_text(t).strip() for t in texts).strip() or None
        if description:
            knowledge.append(f"## {name}\n{description}")
        databases[name] = DatabaseRef(path=str(database), dialect="sqlite", description=description)
        for sheet, number, text in rows:
            questions.append(
                Question(
                    id=f"{name}/{sheet}/{number}", text=text, database=name, labels=[f"corgi:{sheet}"], domain=name
                )
            )
    benchmark = Benchmark(
        name=root.resolve().name or "corgi",
        description="Imported from CORGI (business questions: explanatory, predictive, recommendational).",
        knowledge="\n\n".join(knowledge) or None,
        source_format="corgi",
        databases=databases,
        questions=questions,
    )
    if databases:
        anchor_benchmark(benchmark, now)
    return CorgiImport(benchmark=benchmark, skipped=skipped)
