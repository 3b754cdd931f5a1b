"""ColumnTypes: how an engine stores each column (native date, timestamp, text, number), read from its schema."""

from datetime import date, datetime
from decimal import Decimal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import Database
from biarena.db.dialect import dialect_of
from biarena.generate.sql_builder import ColumnRef, Storage

_DATE_TYPES = {exp.DataType.Type.DATE, exp.DataType.Type.DATE32}


def storage_of(data_type: exp.DataType, dialect: str) -> Storage:
    """What a declared type means for the builders; on SQLite a declared DATE still holds text."""
    if data_type.is_type(*exp.DataType.TEMPORAL_TYPES):
        if dialect_of(dialect).text_times:
            return "text"
        return "date" if data_type.this in _DATE_TYPES else "timestamp"
    if data_type.is_type(*exp.DataType.TEXT_TYPES):
        return "text"
    if data_type.is_type(exp.DataType.Type.BOOLEAN):
        return "boolean"
    if data_type.is_type(*exp.DataType.NUMERIC_TYPES):
        return "number"
    return "other"


def storage_of_value(value: object) -> Storage:
    """What a fetched value says of its column's type (for views, whose DDL declares no types)."""
    if isinstance(value, datetime):
        return "timestamp"
    if isinstance(value, date):
        return "date"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | Decimal):
        return "number"
    if isinstance(value, str):
        return "text"
    return "other"


class ColumnTypes:
    """Each table's columns with their storage, read once per table from the engine's DDL (else from a row)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._tables: dict[str, dict[str, Storage]] = {}

    def of(self, table: str) -> dict[str, Storage]:
        """Column name -> storage for `table`."""
        if table not in self._tables:
            self._tables[table] = self._read(table)
        return self._tables[table]

    def ref(self, table: str, name: str, *, qualified: bool = False) -> ColumnRef:
        """A typed reference to `table.name` (qualified by the table when asked)."""
        return ColumnRef(name, table if qualified else None, self.of(table).get(name, "other"))

    def _read(self, table: str) -> dict[str, Storage]:
        found = self._declared(table)
        sample = self.db.sample_rows(table, 20)
        for index, name in enumerate(sample.columns):
            if found.get(name, "other") != "other":
                continue
            values = [row[index] for row in sample.rows if row[index] is not None]
            found[name] = storage_of_value(values[0]) if values else found.get(name, "other")
        return found

    def _declared(self, table: str) -> dict[str, Storage]:
        dialect = self.db.dialect
        try:
            tree = sqlglot.parse_one(self.db.table_ddl(table), read=dialect)
        except (SqlglotError, ValueError):
            return {}
        schema = tree.find(exp.Schema) if tree is not None else None
        if schema is None:
            return {}
        found: dict[str, Storage] = {}
        for definition in schema.find_all(exp.ColumnDef):
            kind = definition.args.get("kind")
            found[definition.name] = storage_of(kind, dialect) if isinstance(kind, exp.DataType) else "other"
        return found
