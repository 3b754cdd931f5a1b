"""Synthetic databases for Conjecture-Construct-Conclude: a copy of a source database that takes injected rows.

The source is only ever opened read-only. Model-written INSERT statements are parsed (sqlglot), reduced to a table,
its columns and literal values, and executed as parameterized statements; nothing else a model writes runs.
"""

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from biarena.benchmarks.archive import SQLITE_HEADER
from biarena.db.sql_text import compose, placeholders

BASES = ("schema", "data")
"""What a synthetic database starts from: the source's tables without rows (the paper's), or a full copy."""
MAX_ROWS = 200
"""Rows one question may inject."""


class ConstructError(ValueError):
    """A constructed statement cannot be used: not an INSERT of literal values, or it breaks the schema or a key."""


@dataclass(frozen=True)
class RowInsert:
    """One row to inject: a table, its columns and their values."""

    table: str
    columns: tuple[str, ...]
    values: tuple[Any, ...]


@dataclass
class Injection:
    """What executing the construction did: rows added per table, and the rows themselves."""

    rows_per_table: dict[str, int] = field(default_factory=dict)
    rows: list[RowInsert] = field(default_factory=list)


def is_sqlite(path: Path) -> bool:
    """True for an SQLite database file."""
    with path.open("rb") as handle:
        return handle.read(16).startswith(SQLITE_HEADER)


def _read_only(source: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)


def copy_for_injection(source: Path, target: Path, base: str) -> None:
    """Make `target` from the read-only `source`: its schema alone (`schema`) or all its rows too (`data`)."""
    if base not in BASES:
        raise ValueError(f"base must be one of {', '.join(BASES)}, not '{base}'")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    reader = _read_only(source)
    writer = sqlite3.connect(target)
    try:
        if base == "data":
            reader.backup(writer)
            return
        rows = reader.execute(
            "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid"
        ).fetchall()
        with writer:
            for _, sql in rows:
                writer.execute(sql)
    finally:
        reader.close()
        writer.close()


def table_columns(path: Path) -> dict[str, list[str]]:
    """Every table of an SQLite file with its columns, in order."""
    conn = _read_only(path)
    try:
        names = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        ]
        return {n: [r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", (n,))] for n in names}
    finally:
        conn.close()


def key_maxima(path: Path) -> dict[str, Any]:
    """The largest value of each table's integer primary key (`table.column` -> max), so new rows can avoid them."""
    conn = _read_only(path)
    found: dict[str, Any] = {}
    try:
        for table in table_columns(path):
            keys = [r for r in conn.execute("SELECT name, type, pk FROM pragma_table_info(?)", (table,)) if r[2]]
            if len(keys) == 1 and "INT" in (keys[0][1] or "").upper():
                latest = compose("SELECT max({key}) FROM {table}", key=keys[0][0], table=table)
                value = conn.execute(latest).fetchone()[0]
                if value is not None:
                    found[f"{table}.{keys[0][0]}"] = value
        return found
    finally:
        conn.close()


def _literal(node: exp.Expression) -> Any:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return 1 if node.this else 0
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        value = _literal(node.this)
        return -value
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = node.this
        try:
            return int(text)
        except ValueError:
            return float(text)
    raise ConstructError(f"only literal values may be inserted, not {node.sql(dialect='sqlite')[:60]}")


def parse_inserts(statements: list[str], tables: dict[str, list[str]]) -> list[RowInsert]:
    """The rows a list of INSERT ... VALUES statements adds; ConstructError names the first unusable statement."""
    by_lower = {name.lower(): name for name in tables}
    rows: list[RowInsert] = []
    for number, statement in enumerate(statements, 1):
        where = f"statement {number}"
        try:
            parsed = [p for p in sqlglot.parse(statement, read="sqlite") if p is not None]
        except sqlglot.errors.SqlglotError as error:
            raise ConstructError(f"{where} does not parse: {str(error).splitlines()[0]}") from None
        if len(parsed) != 1 or not isinstance(parsed[0], exp.Insert):
            raise ConstructError(f"{where} is not one INSERT statement")
        node = parsed[0]
        if any(node.args.get(k) for k in ("alternative", "conflict", "returning", "ignore", "overwrite", "where")):
            raise ConstructError(f"{where}: a plain INSERT is needed (no OR REPLACE, ON CONFLICT or RETURNING)")
        target = node.this
        listed = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else None
        table_node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(table_node, exp.Table) or table_node.args.get("catalog"):
            raise ConstructError(f"{where}: the target is not a table")
        table = by_lower.get(table_node.name.lower())
        if table is None:
            raise ConstructError(f"{where}: no table '{table_node.name}' in the schema")
        known = {c.lower(): c for c in tables[table]}
        if listed is None:
            columns = tuple(tables[table])
        else:
            missing = [c for c in listed if c.lower() not in known]
            if missing:
                raise ConstructError(f"{where}: table '{table}' has no column '{missing[0]}'")
            columns = tuple(known[c.lower()] for c in listed)
        values = node.expression
        if not isinstance(values, exp.Values):
            raise ConstructError(f"{where}: only INSERT ... VALUES is allowed")
        for item in values.expressions:
            cells = item.expressions if isinstance(item, exp.Tuple) else [item]
            if len(cells) != len(columns):
                raise ConstructError(f"{where}: {len(cells)} values for {len(columns)} columns of '{table}'")
            rows.append(RowInsert(table, columns, tuple(_literal(c) for c in cells)))
    if not rows:
        raise ConstructError("no rows to insert")
    if len(rows) > MAX_ROWS:
        raise ConstructError(f"{len(rows)} rows, more than the {MAX_ROWS} one question may inject")
    return rows


def inject(target: Path, rows: list[RowInsert]) -> Injection:
    """Insert `rows` into the synthetic database in one transaction, then check its keys; ConstructError undoes all.

    Primary keys, UNIQUE, NOT NULL and CHECK constraints are enforced as each row goes in; foreign keys are checked
    once every row is in (so a row may come before the row it refers to), against violations the copy already had.
    """
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        before = set(conn.execute("PRAGMA foreign_key_check").fetchall())
        conn.execute("BEGIN")
        injection = Injection()
        for number, row in enumerate(rows, 1):
            insert = compose(
                "INSERT INTO {table} ({columns}) VALUES ({marks})",
                table=row.table,
                columns=list(row.columns),
                marks=placeholders(len(row.values)),
            )
            try:
                conn.execute(insert, row.values)
            except sqlite3.Error as error:
                conn.execute("ROLLBACK")
                raise ConstructError(f"row {number} (into {row.table}): {error}") from None
            injection.rows_per_table[row.table] = injection.rows_per_table.get(row.table, 0) + 1
            injection.rows.append(row)
        broken = [v for v in conn.execute("PRAGMA foreign_key_check").fetchall() if v not in before]
        if broken:
            conn.execute("ROLLBACK")
            table, rowid, parent, _ = broken[0]
            raise ConstructError(
                f"foreign key check failed: {len(broken)} row(s) refer to missing parents "
                f"(first: {table} row {rowid} -> {parent})"
            )
        problem = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if problem != "ok":
            conn.execute("ROLLBACK")
            raise ConstructError(f"integrity check failed: {problem}")
        conn.execute("COMMIT")
        return injection
    finally:
        conn.close()
