"""duckdb_files: DuckDB files as biarena reads and writes them for its own work (not the analyst's sandbox): a plain
connection, typed tables written into a new file, the latest moments a file holds, tables read and rewritten
(`db.file_tools`)."""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from biarena.db.file_tools import Column, Kind, TableShape, TablesRefused, keeping_first
from biarena.db.sql_text import Sql, compose
from biarena.errors import FormatError, UsageError

_TYPES: dict[Kind, str] = {
    "integer": "BIGINT",
    "real": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "text": "VARCHAR",
}
# Years from 9000 on are "open-ended" markers (9999-12-31), not moments in the data.
_ISO = r"[0-8]\d{3}-[01]\d-[0-3]\d.*"


def _duckdb(missing: str) -> Any:
    """The duckdb module; UsageError `missing` (with the install hint) when DuckDB is not installed."""
    try:
        import duckdb
    except ImportError:
        raise UsageError(f"{missing}: pip install 'biarena[duckdb]'") from None
    return duckdb


def duckdb_connection(path: Path | None, *, missing: str) -> Any:
    """A read-only connection to the DuckDB file at `path`, or an in-memory one (None); UsageError `missing` (with
    the install hint) when DuckDB is not installed."""
    duckdb = _duckdb(missing)
    return duckdb.connect() if path is None else duckdb.connect(str(path), read_only=True)


def _frame(columns: list[Column]) -> Any:
    """The columns as a pandas data frame DuckDB inserts in one statement (row by row is slow there)."""
    import pandas as pd

    data: dict[str, Any] = {}
    for index, column in enumerate(columns):
        key = f"c{index}"
        if column.kind == "integer":
            data[key] = pd.array(column.values, dtype="Int64")
        elif column.kind == "real":
            data[key] = pd.array(column.values, dtype="Float64")
        elif column.kind in ("date", "timestamp"):
            data[key] = pd.to_datetime(pd.Series(column.values, dtype=object)).astype("datetime64[us]")
        else:
            data[key] = pd.Series(column.values, dtype=object)
    return pd.DataFrame(data)


def write_tables(target: Path, tables: dict[str, list[Column]]) -> None:
    """Create the DuckDB file `target` holding each table (name -> typed columns); TablesRefused when DuckDB
    refuses them."""
    duckdb = _duckdb("writing DuckDB databases needs")
    try:
        with duckdb.connect(str(target)) as conn:
            for name, columns in tables.items():
                spec = [compose("{column} {kind}", column=c.name, kind=Sql(_TYPES[c.kind])) for c in columns]
                conn.execute(compose("CREATE TABLE {name} ({spec})", name=name, spec=spec))
                frame = _frame(columns)  # noqa: F841 (DuckDB reads the local data frame by its name)
                conn.execute(compose("INSERT INTO {name} SELECT * FROM frame", name=name))
    except duckdb.Error as error:
        raise TablesRefused(str(error).splitlines()[0]) from None


def latest_values(path: Path, parses: Callable[[Any], bool]) -> Iterator[tuple[str, Any]]:
    """Each date or time column's latest value, and each text column's latest ISO-looking text that `parses`, as
    (`table.column`, value)."""
    duckdb = _duckdb("reading DuckDB files needs")
    try:
        with duckdb.connect(str(path), read_only=True) as conn:
            yield from _latest_values(conn, parses)
    except duckdb.Error as error:
        raise FormatError(f"{path}: cannot read the database for now=auto ({error})") from None


def _latest_values(conn: Any, parses: Callable[[Any], bool]) -> Iterator[tuple[str, Any]]:
    columns = conn.execute(
        "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') ORDER BY 1, 2, ordinal_position"
    ).fetchall()
    for schema, table, column, kind in columns:
        name = compose("{schema}.{table}", schema=schema, table=table)
        kind = kind.upper()
        if kind == "DATE" or kind.startswith("TIMESTAMP"):
            value = conn.execute(compose("SELECT max({column}) FROM {name}", column=column, name=name)).fetchone()[0]
        elif kind == "VARCHAR":
            # latest first; the first that parses wins (the greatest ISO-looking text may not be a date)
            conn.execute(
                compose(
                    "SELECT DISTINCT {column} FROM {name} WHERE regexp_full_match({column}, ?) ORDER BY 1 DESC",
                    column=column,
                    name=name,
                ),
                [_ISO],
            )
            value = None
            while (row := conn.fetchone()) is not None:
                if parses(row[0]):
                    value = row[0]
                    break
        else:
            continue
        yield f"{table}.{column}", value


def read_tables(path: Path) -> tuple[list[TableShape], dict[str, list[tuple]]]:
    """The tables of a DuckDB file and their rows (in storage order)."""
    conn = duckdb_connection(path, missing="reading DuckDB files needs")
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                "AND table_type = 'BASE TABLE' ORDER BY table_name"
            ).fetchall()
        ]
        constraints = conn.execute(
            "SELECT table_name, constraint_type, constraint_column_names, referenced_table FROM duckdb_constraints()"
        ).fetchall()
        referenced = {c[3] for c in constraints if c[1] == "FOREIGN KEY"}
        shapes, rows = [], {}
        for name in names:
            info = conn.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
                [name],
            ).fetchall()
            primary = {c for row in constraints if row[0] == name and row[1] == "PRIMARY KEY" for c in row[2]}
            foreign = {c for row in constraints if row[0] == name and row[1] == "FOREIGN KEY" for c in row[2]}
            types = {row[0]: row[1] for row in info}
            single = next(iter(primary)) if len(primary) == 1 else None
            shapes.append(
                TableShape(
                    name=name,
                    columns=[row[0] for row in info],
                    primary=primary,
                    keys=primary | foreign,
                    nullable={row[0] for row in info if row[2] == "YES" and row[0] not in primary},
                    integer_key=single if single and "INT" in types[single].upper() else None,
                    referenced=name in referenced,
                )
            )
            sql = compose("SELECT {columns} FROM {name}", columns=list(types), name=name)
            rows[name] = conn.execute(sql).fetchall()
        return shapes, rows
    finally:
        conn.close()


def write_rows(path: Path, shapes: list[TableShape], tables: dict[str, list[tuple]]) -> None:
    """Write the DuckDB file at `path` (a copy of the database) again, holding `tables`' rows: each table with its
    columns, their types, NOT NULL and its primary key, then its views; a row a constraint refuses is left out.

    Foreign keys are left out: DuckDB checks them row by row, cannot empty a table whose rows another row refers to
    (its own rows included), and a neighbour is only ever queried."""
    duckdb = _duckdb("writing DuckDB databases needs")
    with duckdb.connect(str(path), read_only=True) as conn:
        columns = {
            shape.name: conn.execute(
                "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
                "WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
                [shape.name],
            ).fetchall()
            for shape in shapes
        }
        views = [row[0] for row in conn.execute("SELECT sql FROM duckdb_views() WHERE NOT internal").fetchall()]
    path.unlink()
    conn = duckdb.connect(str(path))
    try:
        for shape in shapes:
            spec = [
                compose("{column} {kind}", column=name, kind=Sql(kind + (" NOT NULL" if nullable == "NO" else "")))
                for name, kind, nullable in columns[shape.name]
            ]
            if shape.primary:
                keys = [name for name, _, _ in columns[shape.name] if name in shape.primary]
                spec.append(compose("PRIMARY KEY ({keys})", keys=keys))
            conn.execute(compose("CREATE TABLE {name} ({spec})", name=shape.name, spec=spec))
            _insert_rows(duckdb, conn, shape, tables[shape.name])
        for view in views:
            conn.execute(view)
        conn.execute("CHECKPOINT")
    finally:
        conn.close()


def _insert_rows(duckdb: Any, conn: Any, shape: TableShape, rows: list[tuple]) -> None:
    """Add `rows` to the table in their order, keeping the first of rows that clash on the primary key: all at once
    from a data frame (DuckDB casts each column to the table's type), else one by one, leaving out a row a constraint
    refuses (a statement a row is slow in DuckDB)."""
    import pandas as pd

    if shape.primary:
        at = [shape.columns.index(name) for name in shape.columns if name in shape.primary]
        first: dict[tuple, tuple] = {}
        for row in rows:
            first.setdefault(tuple(row[i] for i in at), row)
        rows = list(first.values())
    frame = pd.DataFrame(
        [list(row) for row in rows], columns=[f"c{i}" for i in range(len(shape.columns))], dtype=object
    )
    conn.register("fuzzed_rows", frame)
    try:
        conn.execute("BEGIN")
        conn.execute(compose("INSERT INTO {name} SELECT * FROM fuzzed_rows", name=shape.name))
        conn.execute("COMMIT")
        return
    except duckdb.Error:
        conn.execute("ROLLBACK")
    finally:
        conn.unregister("fuzzed_rows")
    insert = keeping_first(shape)
    for row in rows:
        try:
            conn.execute(insert, list(row))
        except duckdb.Error:
            continue


def write_reversed(source: Path, target: Path, shapes: list[TableShape], rows: dict[str, list[tuple]]) -> None:
    """Write `source` again at `target` with every table's rows stored in reverse order (DuckDB scans rows in the
    order they were written, whatever the keys)."""
    import shutil

    shutil.copyfile(source, target)
    write_rows(target, shapes, {name: found[::-1] for name, found in rows.items()})
