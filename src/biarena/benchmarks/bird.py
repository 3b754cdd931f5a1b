"""Importer for BIRD's dev and mini-dev layout: dev.json (or mini_dev_sqlite.json) over dev_databases/."""

import csv
import io
from functools import partial
from pathlib import Path
from typing import Any

from biarena.benchmarks.archive import check_sqlite
from biarena.benchmarks.json_file import decode_text, json_objects, read_json, text_field
from biarena.benchmarks.missing_databases import LayoutImport, LayoutOptions, MissingDatabases
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question

QUESTION_FILES = ("dev.json", "mini_dev_sqlite.json")
"""The question files a BIRD folder is searched for, in this order."""
DATABASE_FOLDERS = ("dev_databases", "databases")
"""Where the databases are looked for beside the question file."""
DIFFICULTIES = ("simple", "moderate", "challenging")


class BirdOptions(LayoutOptions):
    """Options of the BIRD importer."""

    evidence: bool = True
    """Show each question's evidence to systems as its knowledge (BIRD's standard setting); false imports the
    questions without it (BIRD's harder no-evidence setting)."""
    databases: Path | None = None
    """Folder of the databases (<db_id>/<db_id>.sqlite); default: dev_databases/ beside the question file."""


def _question_file(path: Path) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise NotFoundError(f"{path}: no such file or directory")
    for name in QUESTION_FILES:
        if (path / name).exists():
            return regular_file(confined(path, path / name, str(path / name)), "question file")
    raise NotFoundError(f"{path}: no {' or '.join(QUESTION_FILES)} here")


def _database_root(source: Path, chosen: Path | None) -> Path:
    if chosen is not None:
        if not chosen.is_dir():
            raise NotFoundError(f"{chosen}: no such database folder")
        return chosen
    for name in DATABASE_FOLDERS:
        if (source.parent / name).is_dir():
            return source.parent / name
    raise NotFoundError(
        f"{source.parent}: no {' or '.join(DATABASE_FOLDERS)} folder beside {source.name}; "
        "point to the databases with -O databases=DIR"
    )


def _read_csv_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return decode_text(data, str(path))
    except FormatError:
        # Some of BIRD's published description files are Windows-1252, not UTF-8: read them as Latin-1 rather than
        # refuse the database (every byte decodes, and they are descriptions, not data).
        return data.decode("latin-1")


def column_descriptions(folder: Path, root: Path) -> str | None:
    """BIRD's `database_description/<table>.csv` files as a column glossary (None when there are none)."""
    if not folder.is_dir():
        return None
    sections: list[str] = []
    for path in sorted(folder.glob("*.csv")):
        source = regular_file(confined(root, path, str(path)), "database description")
        reader = csv.DictReader(io.StringIO(_read_csv_text(source)))
        lines: list[str] = []
        for row in reader:
            cells = {str(k or "").strip().lower(): str(v or "").strip() for k, v in row.items() if k is not None}
            name = cells.get("original_column_name") or next(iter(cells.values()), "")
            if not name:
                continue
            words, kind = cells.get("column_name", ""), cells.get("data_format", "")
            about, values = cells.get("column_description", ""), cells.get("value_description", "")
            text = name + (f" '{words}'" if words and words.lower() != name.lower() else "")
            text += f" ({kind})" if kind else ""
            text += f": {about}" if about else ""
            text += f"; values: {' '.join(values.split())}" if values else ""
            lines.append(f"  - {' '.join(text.split())}")
        if lines:
            sections.append(f"- table {path.stem}:\n" + "\n".join(lines))
    if not sections:
        return None
    return "Column descriptions (BIRD's database_description):\n" + "\n".join(sections)


def _database(root: Path, db_id: str, where: str) -> DatabaseRef:
    folder = confined(root, root / db_id, f"{where}: database '{db_id}'")
    candidate = root / db_id / f"{db_id}.sqlite"
    if not (candidate.exists() or candidate.is_symlink()):
        raise NotFoundError(f"{where}: unknown database '{shown(db_id)}' (no {candidate})")
    found = check_sqlite(regular_file(confined(root, candidate, str(candidate)), str(candidate)), str(candidate))
    description = column_descriptions(folder / "database_description", root)
    return DatabaseRef(path=str(found), dialect="sqlite", description=description)


@takes(BirdOptions)
def import_bird(path: str | Path, options: BirdOptions | None = None, **values: Any) -> LayoutImport:
    """Import BIRD dev or mini-dev: a folder holding dev.json (or mini_dev_sqlite.json) and dev_databases/
    (<db_id>/<db_id>.sqlite with its database_description/*.csv), or the question file itself. Evidence becomes
    each question's knowledge (`-O evidence=false`, or `--no-evidence`, leaves it out); difficulty a label
    bird:simple|moderate|challenging. `--skip-missing` imports the questions whose database is present."""
    chosen = BirdOptions.resolve(options, values, "importer 'bird'")
    source = _question_file(Path(path))
    root = _database_root(source, chosen.databases)
    data = read_json(source)
    if not isinstance(data, list):
        raise FormatError(f"{source}: expected a JSON list of questions")
    refs: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    seen: dict[str, int] = {}
    missing = MissingDatabases(chosen.skip_missing)
    for position, where, item in json_objects(enumerate(data), f"{source}: question"):
        qid = text_field(item, "question_id", where) or str(position)
        if qid in seen:
            raise FormatError(f"{where}: question_id '{shown(qid)}' repeats question {seen[qid]}")
        seen[qid] = position
        db_id = plain_name(str(text_field(item, "db_id", where, required=True)), f"{where}: field 'db_id'")
        text = str(text_field(item, "question", where, required=True))
        sql = str(text_field(item, "SQL", where, required=True))
        difficulty = (text_field(item, "difficulty", where) or "").lower()
        if difficulty and difficulty not in DIFFICULTIES:
            raise FormatError(f"{where}: difficulty '{shown(difficulty)}' is not one of {', '.join(DIFFICULTIES)}")
        if not missing.resolve(refs, db_id, partial(_database, root, db_id, where)):
            continue
        evidence = text_field(item, "evidence", where) if chosen.evidence else None
        questions.append(
            Question(
                id=qid,
                text=text,
                database=db_id,
                labels=[f"bird:{difficulty}"] if difficulty else [],
                gold_sql=[sql],
                complexity=difficulty or None,
                knowledge=evidence,
            )
        )
    benchmark = Benchmark(
        name=f"bird-{source.stem}",
        description="Imported from BIRD (big-bench for large-scale database grounded text-to-SQL)"
        + ("." if chosen.evidence else ", without evidence."),
        source_format="bird",
        databases=refs,
        questions=questions,
    )
    return missing.imported(benchmark, str(source), chosen.now)
