"""latest_timestamp: the latest date or time a database holds, and the column that holds it."""

from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from biarena.db.column_words import is_audit, is_birth
from biarena.db.file_tools import file_tools
from biarena.errors import UsageError

# Years from 9000 on are "open-ended" markers (9999-12-31), not moments in the data.
_SENTINEL_YEAR = 9000


@dataclass(frozen=True)
class Latest:
    """The latest moment found and where: `table.column`."""

    moment: datetime
    column: str
    maintenance: bool = False
    """It comes from a maintenance stamp or a birth date (`last_update`, `BirthDate`): taken only where no other
    column holds a date."""


def as_moment(value: Any) -> datetime | None:
    """A date, datetime or ISO-8601 text as a naive datetime (wall-clock time kept); None for anything else."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    if moment.year >= _SENTINEL_YEAR:
        return None
    return moment.replace(tzinfo=None)


def _later(best: Latest | None, value: Any, column: str) -> Latest | None:
    """The later of `best` and `value` (in `table.column`), a business date beating any maintenance stamp."""
    moment = as_moment(value)
    if moment is None:
        return best
    name = column.rsplit(".", 1)[-1]
    found = Latest(moment, column, maintenance=is_audit(name) or is_birth(name))
    if best is None or (best.maintenance and not found.maintenance):
        return found
    if found.maintenance and not best.maintenance:
        return best
    return found if moment > best.moment else best


def latest_timestamp(location: str | Path) -> Latest | None:
    """The latest date or time in any table: ISO text in any column, and date/time-typed columns."""
    text = str(location)
    if "://" in text:
        return _server_latest(text)
    best: Latest | None = None
    for column, value in file_tools(Path(text)).latest_values(Path(text), _parses):
        best = _later(best, value, column)
    return best


def _parses(value: Any) -> bool:
    return as_moment(value) is not None


def _server_latest(url: str) -> Latest | None:
    """Date and time-typed columns of a server database (its text columns are not scanned)."""
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(url)
    except Exception as error:  # an unknown driver or a malformed URL, whatever SQLAlchemy raises for it
        raise UsageError(f"{url}: cannot open for now=auto ({type(error).__name__}: {error})") from None
    best: Latest | None = None
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            for table in inspector.get_table_names():
                for column in inspector.get_columns(table):
                    if not isinstance(column["type"], sa.Date | sa.DateTime):
                        continue
                    query = sa.select(sa.func.max(sa.column(column["name"]))).select_from(sa.table(table))
                    best = _later(best, conn.execute(query).scalar(), f"{table}.{column['name']}")
    except sa.exc.SQLAlchemyError as error:
        raise UsageError(f"{url}: cannot read for now=auto ({error.__class__.__name__}: {error})") from None
    finally:
        engine.dispose()
    return best
