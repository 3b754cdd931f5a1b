"""Importer for BI-Bench's question files: one JSON file per category."""

import json
import re
from pathlib import Path

from biarena.errors import FormatError, NotFoundError
from biarena.records import Benchmark, DatabaseRef, Question

FIELDS = ("Query ID", "Natural Language Query", "Category", "Table(s) Used", "Domain", "Complexity")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_") or "unknown"


def import_bibench(path: str | Path, databases: dict[str, str] | None = None) -> Benchmark:
    """Read BI-Bench JSON files (a folder of them, or one); `databases` maps a domain to a URL or file."""
    root = Path(path)
    files = [root] if root.is_file() else sorted(root.glob("*.json")) if root.is_dir() else []
    if not files:
        raise NotFoundError(f"{root}: no BI-Bench .json files")
    questions: list[Question] = []
    seen: set[str] = set()
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise FormatError(f"{file} line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}") from None
        items = data if isinstance(data, list) else data.get("queries") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise FormatError(f"{file}: expected a list of question objects")
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise FormatError(f"{file}: item {index}: expected an object")
            missing = [
                f for f in ("Query ID", "Natural Language Query") if str(item.get(f, "")).strip() in ("", "None")
            ]
            if missing:
                raise FormatError(f"{file}: item {index}: missing field '{missing[0]}'")
            category = _slug(str(item.get("Category") or file.stem))
            complexity = _slug(str(item.get("Complexity") or "unknown"))
            domain = str(item.get("Domain") or "default").strip()
            qid = f"{category}/{str(item['Query ID']).strip()}"
            if qid in seen:
                raise FormatError(f"{file}: item {index}: 'Query ID' {item['Query ID']} repeats in {category}")
            seen.add(qid)
            tables = item.get("Table(s) Used") or []
            if isinstance(tables, str):
                tables = [t.strip() for t in re.split(r"[,;]", tables) if t.strip()]
            questions.append(
                Question(
                    id=qid,
                    text=str(item["Natural Language Query"]).strip(),
                    database=_slug(domain),
                    labels=[f"bibench:{category}/{complexity}"],
                    tables=[str(t) for t in tables],
                    domain=domain,
                    complexity=complexity,
                )
            )
    refs: dict[str, DatabaseRef] = {}
    for name, location in (databases or {}).items():
        is_url = "://" in location
        refs[_slug(name)] = DatabaseRef(url=location) if is_url else DatabaseRef(path=str(Path(location).resolve()))
    if refs:
        unknown = sorted({q.database for q in questions} - set(refs))
        if unknown:
            raise FormatError(f"--db given, but no database for domain(s): {', '.join(unknown)}")
    return Benchmark(
        name=root.resolve().stem,
        description="Imported from BI-Bench.",
        source_format="bibench",
        databases=refs,
        questions=questions,
    )
