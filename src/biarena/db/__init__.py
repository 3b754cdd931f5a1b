"""Databases: read-only sandboxed execution, clock anchoring, schema description, transpilation."""

from biarena.db.clock import anchor_clock
from biarena.db.copy_database import copy_database
from biarena.db.database import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT, Database, PreparedStatement
from biarena.db.errors import SqlError, SqlProblem, SqlRejected, SqlTimeout, SqlTooLarge
from biarena.db.guard import check_read_only
from biarena.db.limits import SandboxLimits, parse_seconds, parse_size
from biarena.db.open_database import ENGINES, open_database
from biarena.db.pool import DatabasePool
from biarena.db.result import QueryResult
from biarena.db.schema import describe_schema
from biarena.db.transpile import transpile

__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TIMEOUT",
    "ENGINES",
    "Database",
    "DatabasePool",
    "PreparedStatement",
    "QueryResult",
    "SandboxLimits",
    "SqlError",
    "SqlProblem",
    "SqlRejected",
    "SqlTimeout",
    "SqlTooLarge",
    "anchor_clock",
    "check_read_only",
    "copy_database",
    "describe_schema",
    "open_database",
    "parse_seconds",
    "parse_size",
    "transpile",
]
