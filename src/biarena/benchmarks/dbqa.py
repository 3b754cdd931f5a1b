"""Importer for long-form database QA: questions with reference answers over Spider-style databases."""

from pathlib import Path
from typing import Any

from biarena.benchmarks.anchor import anchor_benchmark
from biarena.benchmarks.archive import check_sqlite
from biarena.benchmarks.import_options import ImportOptions
from biarena.benchmarks.json_file import json_objects, read_json, text_field
from biarena.benchmarks.jsonl import read_jsonl
from biarena.benchmarks.paths import confined, plain_name, regular_file
from biarena.benchmarks.shown import shown
from biarena.errors import FormatError, NotFoundError
from biarena.options import takes
from biarena.records import Benchmark, DatabaseRef, Question


class DBQAOptions(ImportOptions):
    """Options of the DB QA importer."""

    databases: Path
    """Spider-style folder of the questions' databases: <db_id>/<db_id>.sqlite."""


def _records(path: Path) -> list[tuple[str, Any]]:
    if path.suffix.lower() == ".jsonl":
        return [(f"line {number}", item) for number, item in read_jsonl(path)]
    data = read_json(path)
    if not isinstance(data, list):
        raise FormatError(f"{path}: expected a list of questions")
    return [(f"item {index}", item) for index, item in enumerate(data)]


def _spider_database(root: Path, db_id: str) -> Path | None:
    for candidate in (root / db_id / f"{db_id}.sqlite", root / f"{db_id}.sqlite", root / f"{db_id}.db"):
        if candidate.exists() or candidate.is_symlink():
            where = f"database '{db_id}'"
            return check_sqlite(regular_file(confined(root, candidate, where), str(candidate)), str(candidate))
    return None


@takes(DBQAOptions)
def import_dbqa(path: str | Path, options: DBQAOptions | None = None, **values: Any) -> Benchmark:
    """Import long-form database QA questions with reference answers (conclusive / interpretive): a JSON or JSONL
    file of question, answer, type, db_id (optional id and query) over a Spider-style folder of databases."""
    chosen = DBQAOptions.resolve(options, values, "importer 'dbqa'")
    source, root, now = Path(path), chosen.databases, chosen.now
    if not source.is_file():
        raise NotFoundError(f"{source}: file not found")
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such database folder")
    refs: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    counters: dict[str, int] = {}
    seen: dict[str, str] = {}
    for place, where, item in json_objects(_records(source), str(source)):
        text = text_field(item, "question", where, required=True)
        db_id = plain_name(str(text_field(item, "db_id", where, required=True)), f"{where}: field 'db_id'")
        if db_id not in refs:
            found = _spider_database(root, db_id)
            if found is None:
                raise NotFoundError(f"{where}: no database {root}/{db_id}/{db_id}.sqlite")
            refs[db_id] = DatabaseRef(path=str(found))
        kind = (text_field(item, "type", where) or "unknown").lower()
        index = counters.get(db_id, 0)
        counters[db_id] = index + 1
        qid = text_field(item, "id", where) or f"{db_id}/{index:04d}"
        if qid in seen:
            raise FormatError(f"{where}: id '{shown(qid)}' repeats {seen[qid]}")
        seen[qid] = place
        query = item.get("query")
        if query is not None and not isinstance(query, str):
            raise FormatError(f"{where}: field 'query' must be SQL text, not {type(query).__name__}")
        questions.append(
            Question(
                id=qid,
                text=str(text),
                database=db_id,
                labels=[f"dbqa:{kind}"],
                reference_answer=text_field(item, "answer", where),
                gold_sql=[query] if query and query.strip() else [],
            )
        )
    benchmark = Benchmark(
        name=source.stem or "dbqa",
        description="Imported long-form database QA.",
        source_format="dbqa",
        databases=refs,
        questions=questions,
    )
    return anchor_benchmark(benchmark, now)
