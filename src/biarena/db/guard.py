"""Parser-based statement check: one read statement, every function on the engine's allow-list, no catalog read."""

from functools import cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError

from biarena.db.allowed_functions import allowed_functions
from biarena.db.catalog import SERVER_VALUES, catalog_problem, server_value_problem
from biarena.db.dialect import dialect_of
from biarena.db.errors import SqlRejected
from biarena.db.value_size import size_problem

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
        "Into",
    )
    if hasattr(exp, name)
)

# Typed functions that reach outside the query whatever name produced them.
_OUTSIDE_FUNCTIONS: tuple[type[exp.Expression], ...] = tuple(
    getattr(exp, name) for name in ("ReadCSV", "ReadParquet", "ToFile", "NextValueFor") if hasattr(exp, name)
)

# The name a function was written with, kept by the parser on typed function nodes.
_NAME_KEY = "biarena_written_name"


@cache
def _dialect(name: str) -> Dialect:
    dialect = Dialect.get_or_raise(name)
    if dialect.ORIGINAL_NAME_META_KEY is None:  # some dialects keep written names already, under their own key
        dialect.ORIGINAL_NAME_META_KEY = _NAME_KEY  # type: ignore[misc]
    return dialect


@cache
def _role(cls: type) -> str:
    """What the check looks at in a node of this class (computed once per class)."""
    if issubclass(cls, _WRITE_NODES):
        return "write"
    if issubclass(cls, SERVER_VALUES):
        return "server"
    if issubclass(cls, exp.Func):
        return "function"
    if issubclass(cls, exp.Table):
        return "table"
    if issubclass(cls, exp.Select):
        return "select"
    return ""


def parse_statements(sql: str, dialect: str) -> list[exp.Expression]:
    """Parse `sql`, keeping on each typed function node the name it was written with."""
    return [s for s in _dialect(dialect).parse(sql) if s is not None]


def written_name(node: exp.Func, key: str = _NAME_KEY) -> str | None:
    """The name a function call was written with (unquoted, lower case), or None for syntax (CASE, CAST, AND)."""
    name = node.meta_get(key)
    if name is None and isinstance(node, exp.Anonymous | exp.AnonymousAggFunc):
        name = node.name
    return name.lower() if isinstance(name, str) else None


def _dotted(node: exp.Expression) -> str:
    if isinstance(node, exp.Dot):
        return f"{_dotted(node.this)}.{_dotted(node.expression)}"
    if isinstance(node, exp.Identifier | exp.Var | exp.Column):
        return node.name.lower()
    return node.sql().lower()


def _qualifier(node: exp.Expression) -> str | None:
    """The schema (or value, in DuckDB's `x.f()`) a call is qualified with, unquoted and lower case."""
    parent = node.parent
    if isinstance(parent, exp.Dot) and parent.expression is node:
        return _dotted(parent.this)
    if isinstance(parent, exp.Table) and parent.this is node and parent.args.get("db") is not None:
        return ".".join(p.name.lower() for p in (parent.args.get("catalog"), parent.args.get("db")) if p is not None)
    return None


def _function_problem(node: exp.Func, dialect: str, max_cell_bytes: int | None) -> str | None:
    if isinstance(node, _OUTSIDE_FUNCTIONS):
        return f"function {node.sql_name().lower()}() is not allowed"
    name = written_name(node, _dialect(dialect).ORIGINAL_NAME_META_KEY or _NAME_KEY)
    if name is None:
        return None
    if name not in allowed_functions(dialect):
        return f"function {name}() is not allowed"
    qualifier = _qualifier(node)
    own = dialect_of(dialect)
    if qualifier is not None and own.builtin_schemas is not None and qualifier not in own.builtin_schemas:
        return f"function {qualifier}.{name}() is not allowed: only the engine's own functions may be called"
    if max_cell_bytes is not None and not own.bounds_own_values:
        return size_problem(node, name, dialect, max_cell_bytes)
    return None


def _table_problem(node: exp.Table, dialect: str) -> str | None:
    if isinstance(node.this, exp.Literal):
        return "a string in FROM names a file, not a table"
    named_files = dialect_of(dialect).named_files
    if named_files is not None and isinstance(node.this, exp.Identifier) and named_files.search(node.name):
        return f"'{node.name}' names a file, not a table"
    return catalog_problem(node, dialect)


def check_read_only(
    sql: str,
    dialect: str = "sqlite",
    *,
    max_bytes: int | None = None,
    max_cell_bytes: int | None = None,
) -> exp.Expression:
    """Parse `sql` and return its tree when it is one read statement calling allowed functions; else SqlRejected.

    `max_bytes` bounds the text checked (parsing time grows with it); `max_cell_bytes` bounds the values
    that functions taking a size (`repeat`, `lpad`, ...) may build.
    """
    if not sql or not sql.strip():
        raise SqlRejected("empty statement")
    if max_bytes is not None and len(sql) > max_bytes:
        raise SqlRejected(f"the statement is {len(sql):,} characters long, over the {max_bytes:,}-character limit")
    try:
        statements = parse_statements(sql, dialect)
    except SqlglotError as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SqlRejected(f"not parseable as {dialect} SQL: {first}") from None
    except RecursionError:
        raise SqlRejected("the statement nests too deeply to check") from None
    if not statements:
        raise SqlRejected("no statement found")
    if len(statements) > 1:
        raise SqlRejected(f"exactly one statement is allowed, found {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, _READ_ROOTS):
        raise SqlRejected(f"only read statements are allowed, not {tree.key.upper()}")
    for node in tree.walk():
        role = _role(type(node))
        if not role:
            continue
        if role == "write":
            if isinstance(node, exp.Into):
                raise SqlRejected("SELECT INTO is not allowed")
            raise SqlRejected(f"a {node.key.upper()} inside the query is not allowed")
        if role == "function":
            problem = _function_problem(node, dialect, max_cell_bytes)  # type: ignore[arg-type]
        elif role == "server":
            problem = server_value_problem(node, dialect)
            if problem is None and isinstance(node, exp.Func):
                problem = _function_problem(node, dialect, max_cell_bytes)
        elif role == "table":
            problem = _table_problem(node, dialect)  # type: ignore[arg-type]
        elif node.args.get("into") or node.args.get("locks"):
            problem = "SELECT INTO and locking clauses are not allowed"
        else:
            problem = None
        if problem:
            raise SqlRejected(problem)
    return tree
