"""Importer for Spider 1.0's layout: dev.json (or test.json), tables.json and database/<db_id>/<db_id>.sqlite."""

from functools import partial
from pathlib import Path
from typing import Any, Literal

from biarena.benchmarks.archive import check_sqlite
from biarena.benchmarks.bis import SpiderSchema, spider_glossary, spider_schemas
from biarena.benchmarks.json_file import json_objects, read_json, text_field
from biarena.benchmarks.missing_databases import LayoutImport, LayoutOptions, MissingDatabases
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.benchmarks.shown import shown
from biarena.benchmarks.spider_hardness import spider_hardness
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question

DATABASE_FOLDERS = ("database", "test_database")
"""Where the databases are looked for, in this order (Spider's test release names its folder test_database)."""


class SpiderOptions(LayoutOptions):
    """Options of the Spider importer."""

    split: Literal["dev", "test", "train_spider", "train_others"] = "dev"
    """Which question file to read: dev.json (the default), test.json, train_spider.json or train_others.json."""


def _schemas(root: Path) -> dict[str, SpiderSchema]:
    path = root / "tables.json"
    if not (path.exists() or path.is_symlink()):
        raise NotFoundError(f"{root}: no tables.json")
    data = read_json(regular_file(confined(root, path, str(path)), "tables.json"))
    if not isinstance(data, list):
        raise FormatError(f"{path}: expected a JSON list of schemas")
    return {entry.db_id: entry for entry in spider_schemas(data, path) if entry.db_id}


def _database(root: Path, db_id: str, schemas: dict[str, SpiderSchema], where: str) -> DatabaseRef:
    for folder in DATABASE_FOLDERS:
        candidate = root / folder / db_id / f"{db_id}.sqlite"
        if candidate.exists() or candidate.is_symlink():
            where_file = str(candidate)
            found = check_sqlite(regular_file(confined(root, candidate, where_file), where_file), where_file)
            entry = schemas.get(db_id)
            description = "Columns (with their names in words):\n" + spider_glossary(entry) if entry else None
            return DatabaseRef(path=str(found), dialect="sqlite", description=description)
    raise NotFoundError(f"{where}: unknown database '{shown(db_id)}' (no {root}/database/{db_id}/{db_id}.sqlite)")


@takes(SpiderOptions)
def import_spider(path: str | Path, options: SpiderOptions | None = None, **values: Any) -> LayoutImport:
    """Import Spider 1.0: a folder holding dev.json (or test.json: split=test), tables.json and
    database/<db_id>/<db_id>.sqlite. Each question is labelled with the hardness Spider's evaluator gives its gold
    query (spider:easy|medium|hard|extra); ids are positions in the question file, as Spider's predictions count.
    `--skip-missing` imports the questions whose database is present."""
    chosen = SpiderOptions.resolve(options, values, "importer 'spider'")
    root = Path(path)
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such directory (give the Spider folder holding {chosen.split}.json)")
    source = root / f"{chosen.split}.json"
    if not (source.exists() or source.is_symlink()):
        raise NotFoundError(f"{root}: no {source.name}")
    data = read_json(regular_file(confined(root, source, str(source)), "question file"))
    if not isinstance(data, list):
        raise FormatError(f"{source}: expected a JSON list of questions")
    schemas = _schemas(root)
    refs: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    missing = MissingDatabases(chosen.skip_missing)
    for position, where, item in json_objects(enumerate(data), f"{source}: question"):
        db_id = plain_name(str(text_field(item, "db_id", where, required=True)), f"{where}: field 'db_id'")
        text = str(text_field(item, "question", where, required=True))
        query = str(text_field(item, "query", where, required=True))
        if not missing.resolve(refs, db_id, partial(_database, root, db_id, schemas, where)):
            continue
        hardness = spider_hardness(query)
        questions.append(
            Question(
                id=str(position),
                text=text,
                database=db_id,
                labels=[f"spider:{hardness}"] if hardness else [],
                gold_sql=[query],
                complexity=hardness,
            )
        )
    benchmark = Benchmark(
        name=f"spider-{chosen.split}",
        description="Imported from Spider 1.0 (cross-domain text-to-SQL).",
        source_format="spider",
        databases=refs,
        questions=questions,
    )
    return missing.imported(benchmark, str(source), chosen.now)
