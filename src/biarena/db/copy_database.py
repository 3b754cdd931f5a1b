"""copy_database: load a SQLite or DuckDB file's tables into a server database (SQLAlchemy URL)."""

from pathlib import Path

from biarena.db.server_database import safe_url
from biarena.errors import NotFoundError, UsageError

_BATCH = 5000


def copy_database(source: str | Path, url: str, *, replace: bool = False) -> dict[str, int]:
    """Copy every table of the file `source` into the database at `url`; return rows copied per table."""
    import sqlalchemy as sa
    from sqlalchemy.exc import SQLAlchemyError

    path = Path(source)
    if not path.is_file():
        raise NotFoundError(f"database file not found: {path}")
    try:
        writer = sa.create_engine(url)
    except (sa.exc.ArgumentError, ImportError, ValueError) as error:
        raise UsageError(f"cannot use database URL {safe_url(url)}: {error}") from None
    reader = sa.create_engine(f"sqlite:///file:{path.resolve()}?mode=ro&uri=true")
    copied: dict[str, int] = {}
    try:
        source_meta = sa.MetaData()
        source_meta.reflect(bind=reader)
        target_meta = sa.MetaData()
        for table in source_meta.sorted_tables:
            columns = [sa.Column(c.name, _portable(c.type), primary_key=c.primary_key) for c in table.columns]
            sa.Table(table.name, target_meta, *columns)
        existing = set(sa.inspect(writer).get_table_names())
        clash = sorted(existing & set(target_meta.tables))
        if clash and not replace:
            raise UsageError(f"tables already exist at the server: {', '.join(clash)} (use --replace)")
        with writer.begin() as conn:
            for name in reversed(clash):
                target_meta.tables[name].drop(conn)
            target_meta.create_all(conn)
            for table in source_meta.sorted_tables:
                target = target_meta.tables[table.name]
                count = 0
                with reader.connect() as src:
                    result = src.execution_options(stream_results=True).execute(sa.select(table))
                    while batch := result.fetchmany(_BATCH):
                        conn.execute(target.insert(), [dict(row._mapping) for row in batch])
                        count += len(batch)
                copied[table.name] = count
    except SQLAlchemyError as error:
        lines = str(error.__cause__ or error).strip().splitlines()
        raise UsageError(f"copy to {safe_url(url)} failed: {lines[0] if lines else type(error).__name__}") from None
    finally:
        reader.dispose()
        writer.dispose()
    return copied


def _portable(column_type: object) -> object:
    """A server type that keeps SQLite's values exactly (REAL must stay double precision)."""
    import sqlalchemy as sa

    name = type(column_type).__name__.upper()
    if "INT" in name:
        return sa.BigInteger()
    if name in {"REAL", "FLOAT", "DOUBLE", "NUMERIC", "DECIMAL", "DOUBLE_PRECISION"}:
        return sa.Double()
    if "BOOL" in name:
        return sa.Boolean()
    return sa.Text()
