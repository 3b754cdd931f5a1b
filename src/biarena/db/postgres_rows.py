"""PostgresRows: a read statement's rows from a cursor on a PostgreSQL server, every row measured before it is sent.

psycopg parses a whole FETCH result before it returns a row, and a server cancel does not interrupt that parsing: one
FETCH of 2,048 rows of 131,072-digit numerics is a gigabyte of Python objects. So the statement runs wrapped: the
server measures each value's text (what it would send) and sends a row's values only when each is within the
per-value limit and the row within ROW_BYTES; otherwise it sends, in their place, every value's width, and the row
ends the result (SqlTooLarge for a value over the limit, the byte cap's cut for a wide row). Each FETCH's rows are
then read one at a time (libpq's single-row mode), so a fetch holds one row of at most ROW_BYTES of text besides the
rows kept, and the deadline's cancel stops it between rows.
"""

from collections.abc import Iterator
from typing import Any

from biarena.db.errors import SqlTooLarge
from biarena.db.fetch_capped import ResultFull, too_large

ROW_BYTES = 16 * 1024**2
"""Most text the server sends for one row; a wider row (all its values within the per-value limit) is held back and
ends the result as the byte cap does."""

MAX_COLUMNS = 1663
"""Widest result the wrapping takes: PostgreSQL's 1,664 columns less the one that carries a held-back row's widths."""

CURSOR_NAME = "biarena_rows"
"""The server-side cursor each statement declares (one at a time per connection, closed with its transaction)."""

_PROBE_NAME = "biarena_columns"


def _total(terms: list[str]) -> str:
    """The sum of `terms`, nested as a balanced tree: a chain of 1,600 additions would be as deep to plan."""
    if len(terms) == 1:
        return terms[0]
    middle = len(terms) // 2
    return f"({_total(terms[:middle])} + {_total(terms[middle:])})"


def measured_statement(sql: str, count: int, max_cell: int) -> str:
    """`sql` (a read statement with `count` columns) wrapped so that the server sends a row's values only when each
    value's text is at most `max_cell` bytes and all of them at most ROW_BYTES, and otherwise the widths alone.

    The result has `count` + 1 columns: the values (all NULL in a held-back row), then the widths (NULL in a sent
    row). The statement and each step of the measure sit behind OFFSET 0, so each value and each test is computed
    once per row, not once per use; a trailing comment ends at the line break before the closing parenthesis.
    """
    names = [f"c{i}" for i in range(1, count + 1)]
    widths = [f"v.w{i}" for i in range(1, count + 1)]
    measured = ", ".join(f"coalesce(octet_length(q.{c}::text), 0)::bigint AS w{i}" for i, c in enumerate(names, 1))
    values = ", ".join(f"CASE WHEN m.k THEN q.{c} END" for c in names)
    listed = ", ".join(widths)
    body = sql.strip().rstrip(";")
    return (
        f"SELECT {values}, CASE WHEN m.k THEN NULL ELSE m.w END "
        f"FROM (SELECT * FROM (\n{body}\n) AS u({', '.join(names)}) OFFSET 0) AS q "
        f"CROSS JOIN LATERAL (SELECT ARRAY[{listed}] AS w, "
        f"{_total(widths)} <= {ROW_BYTES} AND greatest({listed}) <= {int(max_cell)} AS k "
        f"FROM (SELECT {measured} OFFSET 0) AS v OFFSET 0) AS m"
    )


class PostgresRows:
    """The rows of read statement `sql` on psycopg connection `raw` (in a transaction), through a server-side cursor
    of the measured statement; `fetchmany` yields them one at a time as they arrive."""

    def __init__(self, raw: Any, sql: str, *, max_cell: int) -> None:
        # Declaring the statement as written names its columns (and reports its errors as written) without running
        # it: a declared cursor runs only when fetched.
        probe = raw.cursor(name=_PROBE_NAME)
        probe.execute(sql)
        self.columns: list[str] = [d[0] for d in probe.description or []]
        probe.close()
        self._max_cell = max_cell
        self._measured = bool(self.columns)
        if len(self.columns) > MAX_COLUMNS:
            raise SqlTooLarge(
                f"the result has {len(self.columns):,} columns; at most {MAX_COLUMNS:,} can be fetched from PostgreSQL"
            )
        declared = measured_statement(sql, len(self.columns), max_cell) if self._measured else sql
        self._reader = raw.cursor()
        # The measure's expressions grow with the columns: compiling them (JIT, on by default on a cost estimate)
        # takes seconds per fetch at 800 columns, running them a millisecond.
        self._reader.execute("SET LOCAL jit = off")
        self._reader.execute(f"DECLARE {CURSOR_NAME} NO SCROLL CURSOR FOR {declared}")

    def fetchmany(self, size: int) -> Iterator[tuple]:
        """The next `size` rows at most, each parsed as it arrives.

        A row the server held back raises SqlTooLarge when a value is over the per-value limit, else ResultFull.
        Closing the iterator early cancels what the FETCH still sends.
        """
        return self._checked(self._reader.stream(f"FETCH FORWARD {max(1, int(size))} FROM {CURSOR_NAME}"))

    def _checked(self, rows: Iterator[tuple]) -> Iterator[tuple]:
        try:
            for row in rows:
                if not self._measured:
                    yield row
                    continue
                widths = row[-1]
                if widths is not None:
                    self._refuse(widths)
                yield row[:-1]
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()

    def _refuse(self, widths: list[int]) -> None:
        widest = max(range(len(widths)), key=lambda i: widths[i] or 0)
        if (widths[widest] or 0) > self._max_cell:
            raise too_large(self.columns[widest], widths[widest], self._max_cell)
        raise ResultFull
