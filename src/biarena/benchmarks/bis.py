"""Importer for BIS's published layout: questions_*.json, Spider-style tables_*.json, *.sqlite3."""

import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from biarena.benchmarks.anchor import anchor_benchmark
from biarena.benchmarks.archive import check_sqlite
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.json_file import json_objects, read_json
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question
from biarena.yaml_model import field_errors

BIS_NOW = datetime(2023, 1, 17, 20, 20, 15)
"""The fixed time of BIS's published evaluation."""

_REQUIRED = ("db_id", "query", "question")


class SpiderSchema(BaseModel):
    """One entry of a Spider-style `tables_*.json`: tables, columns (owner index, name), types, keys."""

    model_config = ConfigDict(extra="ignore")

    db_id: str | None = None
    """The database the entry describes (BIS's files may name another: matched by tables then)."""
    table_names_original: list[str] = []
    """Table names as in the database."""
    table_names: list[str] = []
    """Table names in words."""
    column_names_original: list[tuple[int, str]] = []
    """(table index, column name) pairs; index -1 is Spider's `*`."""
    column_names: list[tuple[int, str]] = []
    """(table index, column name in words) pairs."""
    column_types: list[str] = []
    """Column types, index-aligned with the columns."""
    foreign_keys: list[tuple[int, int]] = []
    """(column index, referenced column index) pairs."""


def dataset_folders(path: Path) -> list[Path]:
    """Return the BIS dataset folders at `path`: itself, or its subfolders that hold questions."""
    if not path.is_dir():
        raise NotFoundError(f"{path}: no such directory")
    if any(path.glob("questions_*.json")):
        return [path]
    folders = sorted(p for p in path.iterdir() if p.is_dir() and any(p.glob("questions_*.json")))
    if not folders:
        raise NotFoundError(f"{path}: no questions_*.json here or in its subfolders")
    return folders


def spider_glossary(entry: SpiderSchema) -> str:
    """Describe a Spider-style schema entry: tables, natural column names, keys."""
    tables, originals = entry.table_names_original, entry.column_names_original
    lines = []
    for t_index, table in enumerate(tables):
        cols = []
        for c_index, (owner, name) in enumerate(originals):
            if owner != t_index:
                continue
            label = entry.column_names[c_index][1] if c_index < len(entry.column_names) else name
            kind = entry.column_types[c_index] if c_index < len(entry.column_types) else ""
            text = f"{name} ({kind})" if kind else name
            if label and label.lower() != name.lower():
                text += f" '{label}'"
            cols.append(text)
        nice = entry.table_names[t_index] if t_index < len(entry.table_names) else table
        title = table if nice == table else f"{table} '{nice}'"
        lines.append(f"- {title}: " + ", ".join(cols))
    for a, b in entry.foreign_keys:
        if 0 <= a < len(originals) and 0 <= b < len(originals):
            (owner_a, col_a), (owner_b, col_b) = originals[a], originals[b]
            if 0 <= owner_a < len(tables) and 0 <= owner_b < len(tables):
                lines.append(f"- {tables[owner_a]}.{col_a} references {tables[owner_b]}.{col_b}")
    return "\n".join(lines)


def spider_schemas(data: list[Any], path: Path) -> list[SpiderSchema]:
    """The schemas of a Spider-format tables file read from `path`; FormatError names the first that is not one."""
    entries: list[SpiderSchema] = []
    for index, item in enumerate(data):
        try:
            entries.append(SpiderSchema.model_validate(item))
        except ValidationError as error:
            raise FormatError(f"{path}: schema {index}: {field_errors(error, limit=1)}") from None
    return entries


def _schema_entries(root: Path, folder: Path) -> list[SpiderSchema]:
    entries: list[SpiderSchema] = []
    for path in sorted(folder.glob("tables_*.json")):
        data = read_json(confined(root, path, str(path)))
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            raise FormatError(f"{path}: expected a list of schema objects")
        entries += spider_schemas(data, path)
    return entries


def _match_entry(db_id: str, tables: set[str], entries: list[SpiderSchema]) -> SpiderSchema | None:
    for entry in entries:
        if entry.db_id == db_id:
            return entry
    # The published files name a schema 'benchmark_N' for database 'dataset_N': match by tables.
    for entry in entries:
        if set(entry.table_names_original) == tables:
            return entry
    return None


def _text_field(item: dict, key: str, where: str, default: str | None = None) -> str:
    value = item.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is not None:
            return default
        raise FormatError(f"{where}: missing field '{key}'")
    if not isinstance(value, str):
        raise FormatError(f"{where}: field '{key}' must be text, not {type(value).__name__}")
    return value.strip()


@takes(ImportOptions)
def import_bis(path: str | Path, options: ImportOptions | None = None, **values: Any) -> Benchmark:
    """Import BIS (questions_*.json, tables_*.json, *.sqlite3): a dataset folder or a folder of them, anchored at
    2023-01-17 20:20:15 unless `now` says otherwise."""
    chosen = ImportOptions.resolve(options, values, "importer 'bis'")
    root = Path(path)
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    counters: dict[str, int] = {}
    for folder in dataset_folders(root):
        entries = _schema_entries(root, folder)
        for qpath in sorted(folder.glob("questions_*.json")):
            data = read_json(confined(root, qpath, str(qpath)))
            if not isinstance(data, list):
                raise FormatError(f"{qpath}: expected a JSON list of questions")
            for _, where, item in json_objects(enumerate(data), f"{qpath}: question"):
                db_id, query, text = (_text_field(item, key, where) for key in _REQUIRED)
                plain_name(db_id, f"{where}: field 'db_id'")
                if db_id not in databases:
                    databases[db_id] = _database_ref(root, folder, db_id, entries, where)
                index = counters.get(db_id, 0)
                counters[db_id] = index + 1
                case_type = _text_field(item, "case_type", where, default="unknown").lower()
                questions.append(
                    Question(
                        id=f"{db_id}/{index:04d}",
                        text=text,
                        language=_text_field(item, "language", where, default="en").lower(),
                        database=db_id,
                        labels=[f"bis:{case_type}"],
                        gold_sql=[query],
                    )
                )
    benchmark = Benchmark(
        name=root.resolve().name or "bis",
        description="Imported from the BIS NL2SQL benchmark (business intelligence scenarios).",
        now=BIS_NOW,
        source_format="bis",
        databases=databases,
        questions=questions,
    )
    return anchor_benchmark(benchmark, chosen.now)


def _database_ref(root: Path, folder: Path, db_id: str, entries: list[SpiderSchema], where: str) -> DatabaseRef:
    candidates = [folder / f"{db_id}.sqlite3", folder / f"{db_id}.sqlite", folder / f"{db_id}.db"]
    candidates += [folder / db_id / f"{db_id}.sqlite"]
    found = next((p for p in candidates if p.exists() or p.is_symlink()), None)
    if found is None:
        raise NotFoundError(f"{where}: no database for db_id '{db_id}' (looked for {db_id}.sqlite3 in {folder})")
    source = check_sqlite(regular_file(confined(root, found, str(found)), str(found)), str(found))
    entry = _match_entry(db_id, _sqlite_tables(source), entries)
    description = "Columns (with their names in words):\n" + spider_glossary(entry) if entry else None
    return DatabaseRef(path=str(source), dialect="sqlite", description=description)


def _sqlite_tables(path: Path) -> set[str]:
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
