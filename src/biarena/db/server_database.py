"""ServerDatabase: any SQLAlchemy URL, each statement in a read-only transaction with a time limit."""

import contextlib
import re
import time
from typing import Any

from biarena.db.database import READ_START, Database, fetch_capped, finite
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout
from biarena.db.postgres_rows import PostgresRows
from biarena.db.result import QueryResult
from biarena.db.server_deadline import ServerDeadline
from biarena.errors import NotFoundError, UsageError

# SQLAlchemy dialect names that differ from sqlglot's.
_SQLGLOT_DIALECT = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql"}

# PostgreSQL roles that read or write the server's files or run programs on it.
_POWERFUL_ROLES = ("pg_read_server_files", "pg_write_server_files", "pg_execute_server_program")

READ_ONLY_ROLE_HINT = (
    "connect as a read-only role (as a superuser in database db: CREATE ROLE analyst LOGIN PASSWORD '...'; "
    "REVOKE ALL ON DATABASE db FROM PUBLIC; GRANT CONNECT ON DATABASE db TO analyst; "
    "REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO analyst; "
    "GRANT SELECT ON ALL TABLES IN SCHEMA public TO analyst; "
    "REVOKE SELECT ON pg_settings, pg_roles, pg_user, pg_group, pg_auth_members, pg_db_role_setting, pg_database, "
    "pg_stat_activity, pg_stat_database, pg_stat_ssl, pg_extension, pg_available_extensions, "
    "pg_available_extension_versions FROM PUBLIC; ALTER ROLE analyst SET work_mem = '64MB'; "
    "ALTER ROLE analyst SET temp_file_limit = '2GB'), or pass --allow-superuser"
)
"""What to do when the sandbox refuses a server role: the recipe in docs/sandbox.md (a read-only role)."""


def safe_url(url: str) -> str:
    """`url` with its password hidden, for messages (also when it does not parse as a URL)."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


def _named_type(name: str) -> Any:
    from sqlalchemy.types import UserDefinedType

    class NamedType(UserDefinedType):
        cache_ok = True

        def get_col_spec(self, **_: Any) -> str:
            return name

    return NamedType()


class ServerDatabase(Database):
    """A database behind an SQLAlchemy URL (PostgreSQL, MySQL, ...), used read-only.

    On PostgreSQL it refuses a superuser role, or one that may read or write the server's files,
    unless `allow_superuser` is set.
    """

    @classmethod
    def from_url(cls, url: str, *, allow_superuser: bool = False, **settings: Any) -> "ServerDatabase":
        """The server database at the SQLAlchemy `url` (a superuser role refused unless `allow_superuser`)."""
        return cls(url, allow_superuser=allow_superuser, **settings)

    def __init__(self, url: str, *, allow_superuser: bool = False, **limits: Any) -> None:
        super().__init__(**limits)
        import sqlalchemy
        from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

        self.url = url
        try:
            self._engine = sqlalchemy.create_engine(url, pool_pre_ping=True)
            with self._engine.connect():
                pass
        except (ArgumentError, NoSuchModuleError, ValueError) as error:
            raise UsageError(f"cannot use database URL {safe_url(url)}: {error}") from None
        except ImportError as error:
            raise UsageError(
                f"the driver for {safe_url(url)} is not installed ({error.name}); "
                "for PostgreSQL: pip install 'biarena[postgres]'"
            ) from None
        except SQLAlchemyError as error:
            cause = str(error.__cause__ or error).strip().splitlines()
            raise NotFoundError(f"cannot connect to {safe_url(url)}: {cause[0] if cause else error}") from None
        backend = self._engine.dialect.name
        self.backend = backend
        self.dialect = _SQLGLOT_DIALECT.get(backend, backend)
        if backend == "postgresql" and not allow_superuser:
            self._refuse_powerful_role()
        self._inspector = sqlalchemy.inspect(self._engine)
        # With psycopg, rows come from a cursor on the server, each measured there before it is sent (PostgresRows);
        # other drivers fetch through SQLAlchemy, within the same caps and deadline.
        self._named_cursors = backend == "postgresql" and self._engine.dialect.driver == "psycopg"
        self._driver_errors: tuple[type[Exception], ...] = ()
        if self._named_cursors:
            import psycopg

            # The server-side cursor is the driver's own, past SQLAlchemy's error wrapping.
            self._driver_errors = (psycopg.Error,)

    def _refuse_powerful_role(self) -> None:
        names = ", ".join(f"'{name}'" for name in _POWERFUL_ROLES)
        # Asked without pg_roles, which the read-only role recipe makes unreadable; a role missing from an older
        # server is skipped (to_regrole gives NULL, and pg_has_role of NULL is NULL).
        with self._engine.connect() as conn:
            row = conn.exec_driver_sql(
                "SELECT current_user, current_setting('is_superuser') = 'on', ARRAY(SELECT r FROM "
                f"unnest(ARRAY[{names}]) AS r WHERE pg_has_role(current_user, to_regrole(r)::oid, 'MEMBER'))"
            ).first()
            conn.rollback()
        if row is None:
            return
        user, superuser, powers = row
        if superuser or powers:
            what = "a superuser" if superuser else f"a member of {', '.join(powers)}"
            self._engine.dispose()
            raise UsageError(
                f"refusing to run untrusted SQL on {safe_url(self.url)} as {what} ('{user}'): " + READ_ONLY_ROLE_HINT
            )

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], str | None]:
        from sqlalchemy.exc import DBAPIError, SQLAlchemyError

        limits = self.limits
        # 0 turns the server's own limit off: the statement then runs until it ends.
        millis = max(1, int(timeout * 1000)) if finite(timeout) else 0
        deadline = time.monotonic() + timeout
        with self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            watch = ServerDeadline(raw, timeout) if finite(timeout) and hasattr(raw, "cancel") else None
            try:
                if self.backend == "postgresql":
                    conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                    conn.exec_driver_sql(f"SET LOCAL statement_timeout = {millis}")
                elif self.backend in ("mysql", "mariadb"):
                    conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                    conn.exec_driver_sql(f"SET SESSION MAX_EXECUTION_TIME = {millis}")
                if self._named_cursors and READ_START.match(sql):
                    # A cursor on the server: rows come a chunk per FETCH as fetch_capped asks, one row parsed at a
                    # time, none wider than the server let through. A statement that is no read is not declared: the
                    # transaction refuses it.
                    cursor = PostgresRows(raw, sql, max_cell=limits.max_cell_bytes)
                    columns = cursor.columns
                else:
                    # no_parameters: the driver sees the text as is, so '%' and ':name' stay literal.
                    cursor = conn.execution_options(no_parameters=True).exec_driver_sql(sql)
                    if not cursor.returns_rows:
                        return [], [], None
                    columns = [d[0] for d in cursor.description or []]
                rows, truncated_by = fetch_capped(
                    cursor,
                    max_rows,
                    max_bytes=limits.max_result_bytes,
                    max_cell=limits.max_cell_bytes,
                    columns=columns,
                    deadline=deadline,
                )
                return columns, rows, truncated_by
            except (DBAPIError, *self._driver_errors) as error:
                orig = getattr(error, "orig", None) or error
                message = str(orig).strip() or type(orig).__name__
                code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
                if (watch is not None and watch.fired.is_set()) or code == "57014" or "statement timeout" in message:
                    raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
                if code == "25006" or "read-only transaction" in message:
                    raise SqlRejected(f"the engine refused it: {message}") from None
                if code == "42501" or "permission denied" in message or "data-modifying" in message:
                    raise SqlRejected(f"the engine refused it: {message.splitlines()[0]}") from None
                raise SqlError(message.splitlines()[0]) from None
            finally:
                if watch is not None:
                    watch.stop()
                # A connection the deadline cut is gone: the pool drops it, and there is nothing to roll back.
                with contextlib.suppress(SQLAlchemyError, *self._driver_errors):
                    conn.rollback()

    def tables(self) -> list[str]:
        """Return the user tables' names."""
        return sorted(self._inspector.get_table_names() + self._inspector.get_view_names())

    def views(self) -> list[str]:
        """Return the views' names."""
        return sorted(self._inspector.get_view_names())

    def table_ddl(self, table: str) -> str:
        """Return a CREATE TABLE statement built from the reflected columns."""
        from sqlalchemy.schema import CreateTable
        from sqlalchemy.types import NullType

        reflected = self._reflected(table)
        unknown = [c for c in reflected.columns if isinstance(c.type, NullType)]
        if unknown:
            # a type SQLAlchemy does not know (PostgreSQL's point, a domain): written as the server names it
            named = self._type_names(table)
            for column in unknown:
                column.type = _named_type(named.get(column.name, "TEXT"))
        return str(CreateTable(reflected).compile(self._engine)).strip()

    def _reflected(self, table: str) -> Any:
        """`table` reflected, without SQLAlchemy's warning about a column type it does not know (it is read as
        the server names it where that matters)."""
        import warnings

        from sqlalchemy import MetaData, Table
        from sqlalchemy.exc import SAWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SAWarning)
            return Table(table, MetaData(), autoload_with=self._engine)

    def _type_names(self, table: str) -> dict[str, str]:
        """Each column's type as the server writes it (PostgreSQL's format_type), for types SQLAlchemy lacks."""
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        if self._engine.dialect.name != "postgresql":
            return {}
        query = text(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
            "WHERE a.attrelid = to_regclass(:name) AND a.attnum > 0 AND NOT a.attisdropped"
        )
        try:
            with self._engine.connect() as conn:
                rows = conn.execute(query, {"name": '"' + table.replace('"', '""') + '"'}).fetchall()
        except (SQLAlchemyError, *self._driver_errors):
            return {}
        return {name: kind for name, kind in rows}

    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`."""
        out = []
        for fk in self._inspector.get_foreign_keys(table):
            for col, ref in zip(fk["constrained_columns"], fk["referred_columns"], strict=False):
                out.append((col, fk["referred_table"], ref))
        return out

    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table`."""
        from sqlalchemy import select

        reflected = self._reflected(table)
        with self._engine.connect() as conn:
            result = conn.execute(select(reflected).limit(limit))
            return QueryResult(list(result.keys()), [tuple(r) for r in result.fetchall()])

    def close(self) -> None:
        """Dispose of the connection pool."""
        self._engine.dispose()
