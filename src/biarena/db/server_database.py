"""ServerDatabase: any SQLAlchemy URL, each statement in a read-only transaction with a time limit."""

import threading

from biarena.db.database import Database, fetch_capped
from biarena.db.errors import SqlError, SqlRejected, SqlTimeout
from biarena.db.result import QueryResult
from biarena.errors import NotFoundError, UsageError

# SQLAlchemy dialect names that differ from sqlglot's.
_SQLGLOT_DIALECT = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql"}


class ServerDatabase(Database):
    """A database behind an SQLAlchemy URL (PostgreSQL, MySQL, ...), used read-only."""

    def __init__(self, url: str, **limits: float) -> None:
        super().__init__(**limits)  # type: ignore[arg-type]
        import sqlalchemy
        from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

        self.url = url
        try:
            self._engine = sqlalchemy.create_engine(url, pool_pre_ping=True)
            with self._engine.connect():
                pass
        except (ArgumentError, NoSuchModuleError) as error:
            raise UsageError(f"cannot use database URL {self._safe_url()}: {error}") from None
        except ImportError as error:
            raise UsageError(
                f"the driver for {self._safe_url()} is not installed ({error.name}); "
                "for PostgreSQL: pip install 'biarena[postgres]'"
            ) from None
        except SQLAlchemyError as error:
            raise NotFoundError(f"cannot connect to {self._safe_url()}: {error.__cause__ or error}") from None
        backend = self._engine.dialect.name
        self.backend = backend
        self.dialect = _SQLGLOT_DIALECT.get(backend, backend)
        self._inspector = sqlalchemy.inspect(self._engine)

    def _safe_url(self) -> str:
        try:
            from sqlalchemy.engine import make_url

            return make_url(self.url).render_as_string(hide_password=True)
        except Exception:
            return "<url>"

    def _run(self, sql: str, timeout: float, max_rows: int) -> tuple[list[str], list[tuple], bool]:
        from sqlalchemy.exc import DBAPIError

        millis = max(1, int(timeout * 1000))
        with self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            timer = None
            fired = threading.Event()
            if self.backend == "postgresql":
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                conn.exec_driver_sql(f"SET LOCAL statement_timeout = {millis}")
            elif self.backend in ("mysql", "mariadb"):
                conn.exec_driver_sql("SET TRANSACTION READ ONLY")
                conn.exec_driver_sql(f"SET SESSION MAX_EXECUTION_TIME = {millis}")
            if hasattr(raw, "cancel"):

                def cancel() -> None:
                    fired.set()
                    raw.cancel()

                timer = threading.Timer(timeout + 1.0, cancel)
                timer.start()
            try:
                # no_parameters: the driver sees the text as is, so '%' and ':name' stay literal.
                result = conn.execution_options(no_parameters=True).exec_driver_sql(sql)
                columns = list(result.keys()) if result.returns_rows else []
                rows, truncated = fetch_capped(result, max_rows) if result.returns_rows else ([], False)
                return columns, rows, truncated
            except DBAPIError as error:
                message = str(error.orig) if error.orig is not None else str(error)
                code = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
                if fired.is_set() or code == "57014" or "statement timeout" in message:
                    raise SqlTimeout(f"statement interrupted after {timeout:g} s") from None
                if code == "25006" or "read-only transaction" in message:
                    raise SqlRejected(f"the engine refused it: {message.strip()}") from None
                raise SqlError(message.strip().splitlines()[0]) from None
            finally:
                if timer is not None:
                    timer.cancel()
                conn.rollback()

    def tables(self) -> list[str]:
        """Return the user tables' names."""
        return sorted(self._inspector.get_table_names() + self._inspector.get_view_names())

    def table_ddl(self, table: str) -> str:
        """Return a CREATE TABLE statement built from the reflected columns."""
        from sqlalchemy import MetaData, Table
        from sqlalchemy.schema import CreateTable

        reflected = Table(table, MetaData(), autoload_with=self._engine)
        return str(CreateTable(reflected).compile(self._engine)).strip()

    def foreign_keys(self, table: str) -> list[tuple[str, str, str]]:
        """Return (column, referenced table, referenced column) for `table`."""
        out = []
        for fk in self._inspector.get_foreign_keys(table):
            for col, ref in zip(fk["constrained_columns"], fk["referred_columns"], strict=False):
                out.append((col, fk["referred_table"], ref))
        return out

    def sample_rows(self, table: str, limit: int) -> QueryResult:
        """Return up to `limit` rows of `table`."""
        from sqlalchemy import MetaData, Table, select

        reflected = Table(table, MetaData(), autoload_with=self._engine)
        with self._engine.connect() as conn:
            result = conn.execute(select(reflected).limit(limit))
            return QueryResult(list(result.keys()), [tuple(r) for r in result.fetchall()])

    def close(self) -> None:
        """Dispose of the connection pool."""
        self._engine.dispose()
