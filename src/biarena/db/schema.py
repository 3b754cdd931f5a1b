"""describe_schema: the text a prompt shows of a database (DDL, keys, samples, code meanings)."""

import re

from biarena.db.database import Database

_METADATA_NAME = re.compile(r"(meta|mapping|dictionary|glossary|lookup|codes?$|_desc)", re.I)


def _cell(value: object, width: int = 40) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _rows_block(columns: list[str], rows: list[tuple]) -> str:
    lines = [" | ".join(columns)]
    lines += [" | ".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines)


def describe_schema(
    db: Database,
    *,
    sample_rows: int = 3,
    metadata_rows: int = 50,
    description: str | None = None,
) -> str:
    """Describe every table: its DDL, foreign keys, sample rows, and all of a mapping table's rows."""
    parts: list[str] = []
    if description:
        parts.append(description.strip())
    for table in db.tables():
        block = [db.table_ddl(table).strip() + ";"]
        keys = db.foreign_keys(table)
        if keys:
            block.append(
                "-- foreign keys: "
                + ", ".join(f"{table}.{c} -> {t}.{r}" if r else f"{table}.{c} -> {t}" for c, t, r in keys)
            )
        is_metadata = bool(_METADATA_NAME.search(table))
        limit = metadata_rows if is_metadata else sample_rows
        if limit > 0:
            sample = db.sample_rows(table, limit)
            if sample.rows:
                title = "meanings of codes" if is_metadata else f"{len(sample.rows)} sample rows"
                block.append(f"/* {table}: {title}\n{_rows_block(sample.columns, sample.rows)}\n*/")
        parts.append("\n".join(block))
    return "\n\n".join(parts)
