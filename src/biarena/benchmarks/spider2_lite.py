"""Importer for Spider 2.0-lite's SQLite instances: spider2-lite.jsonl, the local databases, the external-knowledge
documents, and the gold result CSVs with their evaluation settings."""

import re
from functools import partial
from pathlib import Path
from typing import Any

from biarena.benchmarks.anchor import anchor_benchmark
from biarena.benchmarks.archive import check_sqlite
from biarena.benchmarks.json_file import json_objects, read_text, text_field
from biarena.benchmarks.jsonl import read_jsonl
from biarena.benchmarks.missing_databases import LayoutImport, LayoutOptions, MissingDatabases
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.benchmarks.shown import shown
from biarena.db.result_csv import read_result_csv
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, GoldResult, Question

QUESTIONS = "spider2-lite.jsonl"
DATABASES = Path("resource/databases/spider2-localdb")
DOCUMENTS = Path("resource/documents")
GOLD = Path("evaluation_suite/gold")
EVAL_SETTINGS = "spider2lite_eval.jsonl"
LOCAL_PREFIX = "local"
"""Spider 2.0-lite's SQLite instances; the others (bq, ga: BigQuery; sf: Snowflake) run on cloud warehouses."""


Spider2LiteImport = LayoutImport
"""What the importer read: the benchmark, and lines to tell the user (instances skipped, gold missing)."""


def _settings(path: Path, root: Path) -> dict[str, dict[str, Any]]:
    """Each instance's evaluation settings (condition_cols, ignore_order) from spider2lite_eval.jsonl."""
    if not (path.exists() or path.is_symlink()):
        raise NotFoundError(f"{root}: no {GOLD / EVAL_SETTINGS}")
    found: dict[str, dict[str, Any]] = {}
    settings = read_jsonl(regular_file(confined(root, path, str(path)), "evaluation settings"))
    for _, where, item in json_objects(settings, f"{path} line"):
        instance = str(text_field(item, "instance_id", where, required=True))
        columns = item.get("condition_cols") or None
        if columns is not None and not _column_lists(columns):
            raise FormatError(f"{where}: field 'condition_cols' must list column positions (or a list per gold)")
        order = item.get("ignore_order", False)
        if not isinstance(order, bool):
            raise FormatError(f"{where}: field 'ignore_order' must be true or false")
        found[instance] = {"condition_cols": columns, "ignore_order": order}
    return found


def _column_lists(value: Any) -> bool:
    def positions(items: Any) -> bool:
        return isinstance(items, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in items)

    return positions(value) or (isinstance(value, list) and all(positions(v) for v in value))


def _gold_tables(folder: Path, root: Path, instance: str) -> list[GoldResult]:
    """The accepted results of an instance: <id>.csv, or <id>_a.csv, <id>_b.csv ... (Spider 2.0's own pattern)."""
    if not folder.is_dir():
        return []
    pattern = re.compile(rf"^{re.escape(instance)}(_[a-z])?\.csv$")
    tables = []
    for path in sorted(p for p in folder.iterdir() if pattern.match(p.name)):
        source = regular_file(confined(root, path, str(path)), f"gold result of '{instance}'")
        tables.append(read_result_csv(read_text(source), str(path)))
    return tables


def _database(root: Path, name: str, where: str) -> DatabaseRef:
    candidate = root / DATABASES / f"{name}.sqlite"
    if not (candidate.exists() or candidate.is_symlink()):
        raise NotFoundError(f"{where}: unknown database '{shown(name)}' (no {candidate})")
    found = check_sqlite(regular_file(confined(root, candidate, str(candidate)), str(candidate)), str(candidate))
    return DatabaseRef(path=str(found), dialect="sqlite")


def _document(root: Path, name: str, where: str) -> str:
    plain_name(name, f"{where}: field 'external_knowledge'")
    path = root / DOCUMENTS / name
    if not (path.exists() or path.is_symlink()):
        raise NotFoundError(f"{where}: external-knowledge document '{shown(name)}' not found in {root / DOCUMENTS}")
    return read_text(regular_file(confined(root, path, str(path)), "external-knowledge document")).strip()


@takes(LayoutOptions)
def import_spider2_lite(path: str | Path, options: LayoutOptions | None = None, **values: Any) -> LayoutImport:
    """Import the SQLite instances of Spider 2.0-lite: its spider2-lite folder (spider2-lite.jsonl,
    resource/databases/spider2-localdb/*.sqlite, resource/documents/*.md, evaluation_suite/gold/ with exec_result/*.csv
    and spider2lite_eval.jsonl). Gold results are the CSVs, scored with `--contract spider2`; instances on cloud
    warehouses (BigQuery, Snowflake) are skipped and counted; `--skip-missing` imports the instances whose database is
    present."""
    chosen = LayoutOptions.resolve(options, values, "importer 'spider2-lite'")
    root = Path(path)
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such directory (give the spider2-lite folder holding {QUESTIONS})")
    source = root / QUESTIONS
    if not (source.exists() or source.is_symlink()):
        raise NotFoundError(f"{root}: no {QUESTIONS}")
    regular_file(confined(root, source, str(source)), "question file")
    settings = _settings(root / GOLD / EVAL_SETTINGS, root)
    refs: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    seen: dict[str, int] = {}
    cloud = 0
    without_gold: list[str] = []
    missing = MissingDatabases(chosen.skip_missing)
    for number, where, item in json_objects(read_jsonl(source), f"{source} line"):
        instance = str(text_field(item, "instance_id", where, required=True))
        if not instance.lower().startswith(LOCAL_PREFIX):
            cloud += 1
            continue
        plain_name(instance, f"{where}: field 'instance_id'")
        if instance in seen:
            raise FormatError(f"{where}: instance_id '{shown(instance)}' repeats line {seen[instance]}")
        seen[instance] = number
        name = plain_name(str(text_field(item, "db", where, required=True)), f"{where}: field 'db'")
        text = str(text_field(item, "question", where, required=True))
        if not missing.resolve(refs, name, partial(_database, root, name, where)):
            continue
        document = text_field(item, "external_knowledge", where)
        tables = _gold_tables(root / GOLD / "exec_result", root, instance)
        sql_path = root / GOLD / "sql" / f"{instance}.sql"
        gold_sql = []
        if sql_path.exists() or sql_path.is_symlink():
            gold_sql = [read_text(regular_file(confined(root, sql_path, str(sql_path)), "gold SQL")).strip()]
        if not tables and not gold_sql:
            without_gold.append(instance)
        evidence = settings.get(instance)
        questions.append(
            Question(
                id=instance,
                text=text,
                database=name,
                gold_sql=[sql for sql in gold_sql if sql],
                gold_results=tables,
                knowledge=_document(root, document, where) if document else None,
                evidence={k: v for k, v in evidence.items() if v is not None} if evidence else None,
            )
        )
    missing.check_some(len(questions), str(source))
    if not questions:
        cloud_note = f" ({cloud} on cloud warehouses)" if cloud else ""
        raise FormatError(f"{source}: no SQLite (local) instances{cloud_note}")
    notes = [note] if (note := missing.note()) else []
    if cloud:
        notes.append(f"skipped {cloud} instance(s) on cloud warehouses (BigQuery, Snowflake); SQLite ones only")
    if without_gold:
        notes.append(f"warning: {len(without_gold)} instance(s) have no gold result or SQL (e.g. '{without_gold[0]}')")
    benchmark = Benchmark(
        name="spider2-lite",
        description="Imported from Spider 2.0-lite (its SQLite instances); gold results are scored with the "
        "spider2 contract.",
        source_format="spider2-lite",
        databases=refs,
        questions=questions,
    )
    return LayoutImport(benchmark=anchor_benchmark(benchmark, chosen.now), notes=notes)
