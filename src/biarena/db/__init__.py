"""Databases: read-only sandboxed execution, clock anchoring, schema description, transpilation.

Each public name is imported from its module on first use, so a command that needs only the limits or the result
type does not load the SQL parser.
"""

from biarena.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "clock": "anchor_clock",
        "guard": "check_read_only",
        "copy_database": "copy_database",
        "database": ("Database", "DEFAULT_MAX_ROWS", "DEFAULT_TIMEOUT", "PreparedStatement"),
        "pool": "DatabasePool",
        "schema": "describe_schema",
        "open_database": ("ENGINES", "open_database"),
        "limits": ("parse_seconds", "parse_size", "SandboxLimits"),
        "result": "QueryResult",
        "errors": ("SqlError", "SqlProblem", "SqlRejected", "SqlTimeout", "SqlTooLarge"),
        "transpile": "transpile",
    },
)
__all__ = __dir__()
