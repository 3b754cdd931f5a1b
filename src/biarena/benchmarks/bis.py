"""Importer for BIS's published layout: questions_*.json, Spider-style tables_*.json, *.sqlite3."""

import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question

BIS_NOW = datetime(2023, 1, 17, 20, 20, 15)
"""The fixed time of BIS's published evaluation."""

_REQUIRED = ("db_id", "query", "question")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise FormatError(f"{path} line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}") from None
    except UnicodeDecodeError as error:
        raise FormatError(f"{path}: not UTF-8 text ({error.reason})") from None


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


def _sqlite_tables(path: Path) -> set[str]:
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        with sqlite3.connect(uri, uri=True) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    except sqlite3.DatabaseError as error:
        raise FormatError(f"{path}: not an SQLite database ({error})") from None
    return {r[0] for r in rows}


def _glossary(entry: dict[str, Any]) -> str:
    """Describe a Spider-style schema entry: tables, natural column names, keys."""
    tables = entry.get("table_names_original") or []
    nice_tables = entry.get("table_names") or tables
    originals = entry.get("column_names_original") or []
    nice = entry.get("column_names") or originals
    types = entry.get("column_types") or []
    lines = []
    for t_index, table in enumerate(tables):
        cols = []
        for c_index, (owner, name) in enumerate(originals):
            if owner != t_index:
                continue
            label = nice[c_index][1] if c_index < len(nice) else name
            kind = types[c_index] if c_index < len(types) else ""
            text = f"{name} ({kind})" if kind else name
            if label and label.lower() != name.lower():
                text += f" '{label}'"
            cols.append(text)
        title = table if nice_tables[t_index] == table else f"{table} '{nice_tables[t_index]}'"
        lines.append(f"- {title}: " + ", ".join(cols))
    for pair in entry.get("foreign_keys") or []:
        a, b = pair
        if a < len(originals) and b < len(originals):
            ta, tb = tables[originals[a][0]], tables[originals[b][0]]
            lines.append(f"- {ta}.{originals[a][1]} references {tb}.{originals[b][1]}")
    return "\n".join(lines)


def _schema_entries(folder: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for path in sorted(folder.glob("tables_*.json")):
        data = _read_json(path)
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
            raise FormatError(f"{path}: expected a list of schema objects")
        entries.extend(data)
    return entries


def _match_entry(db_id: str, tables: set[str], entries: list[dict[str, Any]]) -> dict | None:
    for entry in entries:
        if entry.get("db_id") == db_id:
            return entry
    # The published files name a schema 'benchmark_N' for database 'dataset_N': match by tables.
    for entry in entries:
        if set(entry.get("table_names_original") or []) == tables:
            return entry
    return None


def import_bis(path: str | Path) -> Benchmark:
    """Read a BIS dataset folder (or a folder of them) into a Benchmark anchored at BIS_NOW."""
    root = Path(path)
    databases: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    counters: dict[str, int] = {}
    for folder in dataset_folders(root):
        entries = _schema_entries(folder)
        for qpath in sorted(folder.glob("questions_*.json")):
            data = _read_json(qpath)
            if not isinstance(data, list):
                raise FormatError(f"{qpath}: expected a JSON list of questions")
            for position, item in enumerate(data):
                if not isinstance(item, dict):
                    raise FormatError(f"{qpath}: question {position}: expected an object")
                missing = [k for k in _REQUIRED if not str(item.get(k) or "").strip()]
                if missing:
                    raise FormatError(f"{qpath}: question {position}: missing field '{missing[0]}'")
                db_id = str(item["db_id"])
                if db_id not in databases:
                    databases[db_id] = _database_ref(folder, db_id, entries, qpath, position)
                index = counters.get(db_id, 0)
                counters[db_id] = index + 1
                case_type = str(item.get("case_type") or "unknown").strip().lower()
                questions.append(
                    Question(
                        id=f"{db_id}/{index:04d}",
                        text=str(item["question"]).strip(),
                        language=str(item.get("language") or "en").strip().lower(),
                        database=db_id,
                        labels=[f"bis:{case_type}"],
                        gold_sql=[str(item["query"]).strip()],
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
    return benchmark


def _database_ref(folder: Path, db_id: str, entries: list[dict], qpath: Path, position: int) -> DatabaseRef:
    candidates = [folder / f"{db_id}.sqlite3", folder / f"{db_id}.sqlite", folder / f"{db_id}.db"]
    candidates += [folder / db_id / f"{db_id}.sqlite"]
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        raise NotFoundError(
            f"{qpath}: question {position}: no database for db_id '{db_id}' (looked for {db_id}.sqlite3 in {folder})"
        )
    tables = _sqlite_tables(found)
    entry = _match_entry(db_id, tables, entries)
    description = "Columns (with their names in words):\n" + _glossary(entry) if entry else None
    return DatabaseRef(path=str(found.resolve()), dialect="sqlite", description=description)
