"""Importer for long-form database QA: questions with reference answers over Spider-style databases."""

import json
from pathlib import Path

from biarena.benchmarks.jsonl import read_jsonl
from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question


def _records(path: Path) -> list[tuple[int, dict]]:
    if path.suffix == ".jsonl":
        return list(read_jsonl(path))
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise FormatError(f"{path} line {error.lineno}: invalid JSON: {error.msg}") from None
    if not isinstance(data, list):
        raise FormatError(f"{path}: expected a list of questions")
    return list(enumerate(data))


def _spider_database(root: Path, db_id: str) -> Path | None:
    for candidate in (root / db_id / f"{db_id}.sqlite", root / f"{db_id}.sqlite", root / f"{db_id}.db"):
        if candidate.is_file():
            return candidate
    return None


def import_dbqa(path: str | Path, databases: str | Path) -> Benchmark:
    """Read questions (JSON or JSONL: question, answer, type, db_id) over a Spider `database/` folder."""
    source, root = Path(path), Path(databases)
    if not source.is_file():
        raise NotFoundError(f"{source}: file not found")
    if not root.is_dir():
        raise NotFoundError(f"{root}: no such database folder")
    refs: dict[str, DatabaseRef] = {}
    questions: list[Question] = []
    counters: dict[str, int] = {}
    for where, item in _records(source):
        if not isinstance(item, dict):
            raise FormatError(f"{source} item {where}: expected an object")
        for field in ("question", "db_id"):
            if not str(item.get(field) or "").strip():
                raise FormatError(f"{source} item {where}: missing field '{field}'")
        db_id = str(item["db_id"]).strip()
        if db_id not in refs:
            found = _spider_database(root, db_id)
            if found is None:
                raise NotFoundError(f"{source} item {where}: no database {root}/{db_id}/{db_id}.sqlite")
            refs[db_id] = DatabaseRef(path=str(found.resolve()))
        kind = str(item.get("type") or "unknown").strip().lower()
        index = counters.get(db_id, 0)
        counters[db_id] = index + 1
        questions.append(
            Question(
                id=str(item.get("id") or f"{db_id}/{index:04d}"),
                text=str(item["question"]).strip(),
                database=db_id,
                labels=[f"dbqa:{kind}"],
                reference_answer=str(item["answer"]).strip() if item.get("answer") else None,
                gold_sql=[item["query"]] if isinstance(item.get("query"), str) else [],
            )
        )
    return Benchmark(
        name=source.stem,
        description="Imported long-form database QA.",
        source_format="dbqa",
        databases=refs,
        questions=questions,
    )
