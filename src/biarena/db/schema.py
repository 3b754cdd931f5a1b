"""describe_schema: the text a prompt shows of a database (DDL, keys, samples, code meanings)."""

import re
from decimal import Decimal

from biarena.db.cells import cell_text
from biarena.db.database import Database

_DATE = re.compile(r"^\s*(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4})")
CODE_MAX_CHARS = 32
"""A code is short: longer unique text is prose, not a code."""
LETTER_SHARE = 0.6
"""A meaning is words: at least this share of its characters (spaces aside) are letters."""
SAMPLE_CELL_CHARS = 40
"""Sample rows show the shape of the data; long text in them is cut to this many characters."""
MEANING_MAX_CHARS = 200
"""A meaning is a phrase or a sentence; a column of longer text holds documents, not meanings."""


def _rows_block(columns: list[str], rows: list[tuple], width: int) -> str:
    lines = [" | ".join(columns)]
    lines += [" | ".join(cell_text(v, width=width) for v in row) for row in rows]
    return "\n".join(lines)


def _is_code(values: list[object]) -> bool:
    """Every row has a distinct, short value that is neither a fraction nor a date: an id or a code."""
    if any(v is None or isinstance(v, float | bool) for v in values):
        return False
    try:
        if len(set(values)) < len(values):
            return False
    except TypeError:  # nested values (arrays, structs) are not codes
        return False
    return all(
        isinstance(v, int) or (isinstance(v, str) and 0 < len(v) <= CODE_MAX_CHARS and not _DATE.match(v))
        for v in values
    )


def _is_words(values: list[object]) -> bool:
    """The values are text made mostly of letters (in any script): meanings, names, descriptions."""
    texts = [v for v in values if v is not None]
    if not texts or not all(isinstance(v, str) and len(v) <= MEANING_MAX_CHARS for v in texts):
        return False
    visible = "".join(str(v).replace(" ", "") for v in texts)
    return bool(visible) and sum(c.isalpha() for c in visible) >= LETTER_SHARE * len(visible)


def is_code_table(columns: list[str], rows: list[tuple], max_rows: int) -> bool:
    """True for a table that explains codes: few rows, a code column, a text column, and no measures or dates."""
    if not rows or len(rows) > max_rows or len(columns) < 2:
        return False
    by_column = [[row[i] for row in rows] for i in range(len(columns))]
    codes = {i for i, values in enumerate(by_column) if _is_code(values)}
    words = {i for i, values in enumerate(by_column) if _is_words(values)}
    numeric = [i for i, values in enumerate(by_column) if any(isinstance(v, int | float | Decimal) for v in values)]
    if len(numeric) > 1 or any(i not in codes for i in numeric):
        return False  # a quantity (a price, a percentage, a population) makes it a business table
    if any(i not in codes and i not in words for i in range(len(columns))):
        return False  # dates, amounts kept as text, mixed values
    return any(c != w for c in codes for w in words)


def describe_schema(
    db: Database,
    *,
    sample_rows: int = 3,
    metadata_rows: int = 50,
    description: str | None = None,
) -> str:
    """Describe every table: its DDL, foreign keys, sample rows, and all rows of a table that explains codes."""
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
        limit = max(metadata_rows + 1 if metadata_rows > 0 else 0, sample_rows)
        head = db.sample_rows(table, limit) if limit > 0 else None
        if head is not None and metadata_rows > 0 and is_code_table(head.columns, head.rows, metadata_rows):
            block.append(
                f"/* {table}: meanings of codes\n{_rows_block(head.columns, head.rows, MEANING_MAX_CHARS)}\n*/"
            )
        elif head is not None and sample_rows > 0 and head.rows:
            sample = head.rows[:sample_rows]
            title = "1 sample row" if len(sample) == 1 else f"{len(sample)} sample rows"
            block.append(f"/* {table}: {title}\n{_rows_block(head.columns, sample, SAMPLE_CELL_CHARS)}\n*/")
        parts.append("\n".join(block))
    return "\n\n".join(parts)
