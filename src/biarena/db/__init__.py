"""Databases: read-only sandboxed execution, clock anchoring, schema description, transpilation.

Each public name is imported from its module on first use, so a command that needs only the limits or the result
type does not load the SQL parser.
"""

from biarena.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "anchor_clock": "clock",
        "check_read_only": "guard",
        "copy_database": "copy_database",
        "Database": "database",
        "DatabasePool": "pool",
        "DEFAULT_MAX_ROWS": "database",
        "DEFAULT_TIMEOUT": "database",
        "describe_schema": "schema",
        "ENGINES": "open_database",
        "open_database": "open_database",
        "parse_seconds": "limits",
        "parse_size": "limits",
        "PreparedStatement": "database",
        "QueryResult": "result",
        "SandboxLimits": "limits",
        "SqlError": "errors",
        "SqlProblem": "errors",
        "SqlRejected": "errors",
        "SqlTimeout": "errors",
        "SqlTooLarge": "errors",
        "transpile": "transpile",
    },
)

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
