"""Importer for BI-Bench's question files: one JSON file per category."""

import re
from pathlib import Path
from typing import Any

from pydantic import Field

from biarena.benchmarks.anchor import anchor_benchmark
from biarena.benchmarks.archive import SQLITE_HEADER, check_sqlite
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.json_file import json_objects, read_json, text_field
from biarena.benchmarks.paths import confined, regular_file
from biarena.benchmarks.shown import shown
from biarena.db.dialect import file_engine_by_magic, file_engines
from biarena.errors import FormatError, NotFoundError, UsageError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question

FIELDS = ("Query ID", "Natural Language Query", "Category", "Table(s) Used", "Domain", "Complexity")


class BIBenchOptions(ImportOptions):
    """Options of the BI-Bench importer."""

    databases: dict[str, str] = Field(default_factory=dict)
    """DOMAIN=URL or DOMAIN=FILE: each domain's database (without any, the questions serve generation and judging)."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_") or "unknown"


def _tables(item: dict, where: str) -> list[str]:
    tables = item.get("Table(s) Used")
    if tables is None:
        return []
    if isinstance(tables, str):
        return [t.strip() for t in re.split(r"[,;]", tables) if t.strip()]
    if isinstance(tables, list) and all(isinstance(t, str) for t in tables):
        return [t.strip() for t in tables if t.strip()]
    raise FormatError(
        f"{where}: field 'Table(s) Used' must be table names (a list, or text separated by commas), "
        f"not {shown(tables, 40)}"
    )


def _question_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if root.is_dir():
        return [confined(root, p, str(p)) for p in sorted(root.glob("*.json")) if not p.name.startswith(".")]
    raise NotFoundError(f"{root}: no such file or directory")


@takes(BIBenchOptions)
def import_bibench(path: str | Path, options: BIBenchOptions | None = None, **values: Any) -> Benchmark:
    """Import BI-Bench questions: a .json file or a folder of them (one per category); without databases they serve
    generation and judging."""
    chosen = BIBenchOptions.resolve(options, values, "importer 'bibench'")
    databases, now = chosen.databases, chosen.now
    root = Path(path)
    files = _question_files(root)
    if not files:
        raise NotFoundError(f"{root}: no BI-Bench .json files")
    questions: list[Question] = []
    seen: set[str] = set()
    for file in files:
        data = read_json(file)
        items = data if isinstance(data, list) else data.get("queries") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise FormatError(f"{file}: expected a list of question objects")
        for _, where, item in json_objects(enumerate(items), f"{file}: item"):
            query_id = text_field(item, "Query ID", where, required=True)
            text = text_field(item, "Natural Language Query", where, required=True)
            category = _slug(text_field(item, "Category", where) or file.stem)
            complexity = _slug(text_field(item, "Complexity", where) or "unknown")
            domain = text_field(item, "Domain", where) or "default"
            qid = f"{category}/{query_id}"
            if qid in seen:
                raise FormatError(f"{where}: 'Query ID' {shown(query_id)} repeats in {category}")
            seen.add(qid)
            questions.append(
                Question(
                    id=qid,
                    text=str(text),
                    database=_slug(domain),
                    labels=[f"bibench:{category}/{complexity}"],
                    tables=_tables(item, where),
                    domain=domain,
                    complexity=complexity,
                )
            )
    refs = _database_refs(databases or {}, {q.database for q in questions})
    benchmark = Benchmark(
        name=root.resolve().stem or "bibench",
        description="Imported from BI-Bench.",
        source_format="bibench",
        databases=refs,
        questions=questions,
    )
    return anchor_benchmark(benchmark, now)


def _database_refs(databases: dict[str, str], domains: set[str]) -> dict[str, DatabaseRef]:
    refs: dict[str, DatabaseRef] = {}
    for name, location in databases.items():
        key = _slug(name)
        if key in refs:
            raise UsageError(f"databases: domain '{shown(name)}' is named twice")
        if key not in domains:
            known = ", ".join(sorted(domains))
            raise UsageError(f"databases {shown(name)}=...: no question has domain '{shown(name)}' (domains: {known})")
        refs[key] = _database_ref(name, location)
    unknown = sorted(domains - set(refs))
    if refs and unknown:
        raise UsageError(f"databases given, but none for domain(s): {', '.join(unknown)}")
    return refs


def _database_ref(name: str, location: str) -> DatabaseRef:
    where = f"databases {shown(name)}={shown(location)}"
    scheme = location.split("://", 1)[0].split("+", 1)[0].lower() if "://" in location else None
    if scheme is not None and scheme not in file_engines():
        return DatabaseRef(url=location)
    file_path = Path(location.split(":///", 1)[1] if scheme else location)
    source = regular_file(file_path, where).resolve()
    with source.open("rb") as handle:
        head = handle.read(16)
    if head.startswith(SQLITE_HEADER):
        return DatabaseRef(path=str(check_sqlite(source, where)), dialect="sqlite")
    if (engine := file_engine_by_magic(head)) is not None:
        return DatabaseRef(path=str(source), dialect=engine)
    raise FormatError(f"{where}: not an SQLite or DuckDB database")
