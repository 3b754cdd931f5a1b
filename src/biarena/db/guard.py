"""Parser-based statement check: exactly one read-only statement passes."""

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db.errors import SqlRejected

_READ_ROOTS: tuple[type[exp.Expression], ...] = (
    exp.Select,
    exp.SetOperation,
    exp.Values,
    exp.Subquery,
)

_WRITE_NODES: tuple[type[exp.Expression], ...] = tuple(
    getattr(exp, name)
    for name in (
        "Insert",
        "Update",
        "Delete",
        "Merge",
        "Create",
        "Drop",
        "Alter",
        "AlterColumn",
        "Command",
        "Pragma",
        "Set",
        "Transaction",
        "Commit",
        "Rollback",
        "Copy",
        "LoadData",
        "Use",
        "Analyze",
        "Attach",
        "Detach",
        "TruncateTable",
        "Grant",
        "Revoke",
        "Kill",
        "Refresh",
        "Cache",
        "Uncache",
        "Describe",
        "Summarize",
        "Install",
        "Export",
    )
    if hasattr(exp, name)
)

# Functions that reach outside the query: extension loading, file access, side effects.
DENIED_FUNCTIONS = frozenset(
    {
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
        "zipfile",
        "sqlar_compress",
        "sqlar_uncompress",
        "read_csv",
        "read_csv_auto",
        "read_parquet",
        "read_json",
        "read_json_auto",
        "read_json_objects",
        "read_text",
        "read_blob",
        "glob",
        "parquet_scan",
        "parquet_metadata",
        "parquet_schema",
        "sniff_csv",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_sleep",
        "pg_terminate_backend",
        "lo_import",
        "lo_export",
        "dblink",
        "dblink_exec",
        "nextval",
        "setval",
        "set_config",
        "sqlite_dbpage",
        "sqlite_dbdata",
        "sqlite_dbptr",
        "fsdir",
        "query_table",
        "getvariable",
        "system",
        "shell",
    }
)


def _function_name(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    return None


def check_read_only(sql: str, dialect: str = "sqlite") -> exp.Expression:
    """Parse `sql` and return its tree when it is exactly one read statement; else SqlRejected."""
    if not sql or not sql.strip():
        raise SqlRejected("empty statement")
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except SqlglotError as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SqlRejected(f"not parseable as {dialect} SQL: {first}") from None
    if not statements:
        raise SqlRejected("no statement found")
    if len(statements) > 1:
        raise SqlRejected(f"exactly one statement is allowed, found {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, _READ_ROOTS):
        raise SqlRejected(f"only read statements are allowed, not {tree.key.upper()}")
    for node in tree.walk():
        if isinstance(node, _WRITE_NODES):
            raise SqlRejected(f"a {node.key.upper()} inside the query is not allowed")
        if isinstance(node, exp.Select) and (node.args.get("into") or node.args.get("locks")):
            raise SqlRejected("SELECT INTO and locking clauses are not allowed")
        if isinstance(node, exp.Into):
            raise SqlRejected("SELECT INTO is not allowed")
        name = _function_name(node)
        if name in DENIED_FUNCTIONS:
            raise SqlRejected(f"function {name}() is not allowed")
        if isinstance(node, exp.Table):
            table_name = str(node.name).lower()
            if table_name in DENIED_FUNCTIONS:
                raise SqlRejected(f"table function {table_name}() is not allowed")
    return tree
