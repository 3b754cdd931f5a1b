"""Importer for CORGI's published layout: a folder per vertical with questions (xlsx), database, description."""

import io
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.records import Benchmark, DatabaseRef, Question

SHEETS = ("type2", "type3", "type4")
_PART = re.compile(r"-part(\d+)\.zip$", re.I)


@dataclass
class CorgiImport:
    """The imported benchmark, and what could not be imported (verticals without a database)."""

    benchmark: Benchmark
    skipped: dict[str, str] = field(default_factory=dict)
    workdir: Path | None = None


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
        for row_number, row in enumerate(rows, start=2):
            number, text = row[columns["number"]], row[columns["question"]]
            if number is None and text is None:
                continue
            if number is None or not str(text or "").strip():
                raise FormatError(f"{path} sheet '{names[sheet]}' row {row_number}: missing Number or Question")
            number = str(int(number)) if isinstance(number, float) and number.is_integer() else str(number).strip()
            found.append((sheet, number, str(text).strip()))
    if not found:
        raise FormatError(f"{path}: no questions in sheets {', '.join(SHEETS)}")
    return found


def _extract_db(archive: bytes, source: str, target: Path) -> Path:
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            members = [m for m in zipped.namelist() if m.lower().endswith((".db", ".sqlite", ".sqlite3"))]
            if not members:
                raise FormatError(f"{source}: the archive holds no .db file")
            with zipped.open(members[0]) as data, target.open("wb") as out:
                shutil.copyfileobj(data, out)
    except zipfile.BadZipFile:
        raise FormatError(f"{source}: not a zip archive") from None
    return target


def locate_database(folder: Path, name: str, workdir: Path) -> Path | None:
    """The vertical's SQLite file: `<name>.db`, `<name>.db.zip`, or `<name>-part1.zip` … `partN.zip`."""
    plain = folder / f"{name}.db"
    if plain.is_file():
        return plain
    target = workdir / f"{name}.db"
    zipped = folder / f"{name}.db.zip"
    if zipped.is_file():
        return _extract_db(zipped.read_bytes(), str(zipped), target)
    parts = sorted((int(m.group(1)), p) for p in folder.glob(f"{name}-part*.zip") if (m := _PART.search(p.name)))
    if not parts:
        return None
    numbers = [n for n, _ in parts]
    if numbers != list(range(1, len(parts) + 1)):
        raise FormatError(f"{folder}: split database parts are not 1..{len(parts)} (found {numbers})")
    blobs = [p.read_bytes() for _, p in parts]
    if all(zipfile.is_zipfile(io.BytesIO(b)) for b in blobs):
        # each part is a zip of one piece of the file: join the pieces in order
        with target.open("wb") as out:
            for blob in blobs:
                with zipfile.ZipFile(io.BytesIO(blob)) as zipped:
                    for member in sorted(zipped.namelist()):
                        out.write(zipped.read(member))
        return target
    # one zip archive cut into pieces: join the bytes, then extract
    return _extract_db(b"".join(blobs), f"{folder}/{name}-part*.zip", target)


def _vertical_name(folder: Path) -> str | None:
    books = sorted(folder.glob("*-questions.xlsx"))
    return books[0].name[: -len("-questions.xlsx")] if books else None


def import_corgi(path: str | Path) -> CorgiImport:
    """Read CORGI verticals (a folder of them, or one); databases are extracted to a work directory."""
    root = Path(path)
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such directory")
    folders = [root] if _vertical_name(root) else sorted(p for p in root.iterdir() if p.is_dir() and _vertical_name(p))
    if not folders:
        raise NotFoundError(f"{root}: no <name>-questions.xlsx here or in its subfolders")
    workdir = Path(tempfile.mkdtemp(prefix="corgi-import-"))
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    knowledge: list[str] = []
    skipped: dict[str, str] = {}
    for folder in folders:
        name = _vertical_name(folder)
        assert name is not None
        rows = read_questions(folder / f"{name}-questions.xlsx")
        database = locate_database(folder, name, workdir)
        if database is None:
            skipped[name] = f"no {name}.db, {name}.db.zip or {name}-part1.zip in {folder}"
            continue
        texts = sorted(folder.glob("*.txt"))
        description = "\n".join(t.read_text(encoding="utf-8", errors="replace").strip() for t in texts) or None
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
    return CorgiImport(benchmark=benchmark, skipped=skipped, workdir=workdir)
