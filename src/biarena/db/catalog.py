"""catalog_problem: of the engine's own catalog, a query reads only what describes the benchmark's tables.

A server's catalog also holds its settings, version, roles, sessions and extensions (PostgreSQL's
`pg_settings`, `pg_stat_activity`; MySQL's `mysql.user`); an embedded engine's holds its file's path
(DuckDB's `duckdb_databases`, SQLite's `pragma_database_list`) and the statements it has prepared
(SQLite's `sqlite_stmt`). Per engine, a table reference may name the benchmark's own tables and the
`information_schema` views that describe them, nothing else of the catalog; and no value may report on
the server without naming a table (`current_user`, `@@version`, `'pg_authid'::regclass`). Functions that
read the catalog or the server (`current_setting`, `version`, `pg_ls_dir`, `duckdb_settings`) are off the
function allow-list.
"""

import re
from dataclasses import dataclass

from sqlglot import exp

from biarena.db.allowed_functions import allowed_functions

# The standard views that show the benchmark's schemas, tables, columns, views, keys and constraints.
_DESCRIBING_VIEWS = """
    schemata tables views columns
    table_constraints key_column_usage referential_constraints check_constraints
    constraint_column_usage constraint_table_usage
"""


def _names(*groups: str) -> frozenset[str]:
    return frozenset(name for group in groups for name in group.split())


@dataclass(frozen=True)
class CatalogRules:
    """What one engine lets a query read of its own catalog."""

    engine: str
    """The engine's name, for messages."""
    described_by: frozenset[str]
    """The information_schema views a query may read: those that describe the benchmark's tables."""
    closed_schemas: frozenset[str] = frozenset()
    """Schemas (or databases) of the engine's own that a query may not name."""
    closed_schema_prefix: str | None = None
    """Every schema whose name starts with this is the engine's own."""
    closed_prefixes: tuple[str, ...] = ()
    """Relation names starting with one of these are the engine's own (unless in `open_names`)."""
    closed_names: frozenset[str] = frozenset()
    """Relation names of the engine's own that a query may not read."""
    open_names: frozenset[str] = frozenset()
    """Names with a closed prefix that describe the benchmark all the same."""
    resolves_qualified: bool = True
    """True when a schema-qualified name still finds the engine's own relation (DuckDB's `main.duckdb_databases`)."""
    server: bool = True
    """True for a server: its current role, database and settings are not the benchmark's."""


# Each information_schema view was read on PostgreSQL 15 as the read-only role. Allowed: those listing the schemas,
# tables, columns, views and key columns the role may use (table_constraints, referential_constraints,
# check_constraints and the *_usage views show only tables the role owns or may write: empty for it).
# Refused: roles and privileges (enabled_roles, applicable_roles, *_privileges, role_*_grants), routines and
# parameters (the server's thousands of functions), server facts (sql_implementation_info holds its version,
# character_sets its encoding, collations), foreign servers, user mappings, and the rest, which describe nothing
# a question needs.
POSTGRES = CatalogRules(
    engine="PostgreSQL",
    described_by=_names(_DESCRIBING_VIEWS, "view_table_usage view_column_usage"),
    # pg_catalog, pg_toast, pg_temp_N, pg_toast_temp_N: no user schema may start with pg_.
    closed_schema_prefix="pg_",
    # An unqualified name is looked up in pg_catalog before the search path, and every relation there starts
    # with pg_; a benchmark table of such a name is reached as public.pg_...
    closed_prefixes=("pg_",),
    resolves_qualified=False,
)

# DuckDB's own views are found unqualified and under main (system.main): duckdb_databases shows the file's path,
# duckdb_logs its log, pg_catalog.pg_settings its settings. sqlite_master and information_schema (but for
# character_sets) describe the tables.
DUCKDB = CatalogRules(
    engine="DuckDB",
    described_by=_names(_DESCRIBING_VIEWS),
    closed_schemas=frozenset({"pg_catalog"}),
    closed_prefixes=("duckdb_", "pg_", "pragma_"),
    server=False,
)

# sqlite_master (sqlite_schema) holds the benchmark's own DDL. The pragma tables may be read without parentheses
# (`FROM pragma_database_list` shows the file's path); those that describe tables are allowed, as functions too.
# dbstat shows the file's pages, sqlite_stmt the statements prepared on the connection (other queries' text).
SQLITE = CatalogRules(
    engine="SQLite",
    described_by=frozenset(),
    closed_prefixes=("pragma_",),
    closed_names=frozenset({"dbstat", "sqlite_stmt", "sqlite_dbpage"}),
    open_names=frozenset(name for name in allowed_functions("sqlite") if name.startswith("pragma_")),
    server=False,
)

# MySQL's information_schema.views names each view's definer (an account and host): not allowed.
MYSQL = CatalogRules(
    engine="MySQL",
    described_by=(_names(_DESCRIBING_VIEWS) - {"views"}) | {"statistics"},
    closed_schemas=frozenset({"mysql", "performance_schema", "sys"}),
    resolves_qualified=False,
)

DEFAULT = CatalogRules(engine="the engine", described_by=_names(_DESCRIBING_VIEWS), resolves_qualified=False)
"""For an engine without rules of its own: information_schema's describing views; server values refused."""

CATALOG_RULES: dict[str, CatalogRules] = {"postgres": POSTGRES, "duckdb": DUCKDB, "sqlite": SQLITE, "mysql": MYSQL}
"""Catalog rules per sqlglot dialect."""

# PostgreSQL's object identifier types: a cast to one looks a name (or number) up in the catalog.
_REG_CAST = re.compile(r"\breg(class|collation|config|dictionary|namespace|oper|operator|proc|procedure|role|type)\b")

# What each value that reports on the server tells (written without parentheses these are not function calls, so
# the allow-list does not see them).
_SERVER_FACTS: dict[type[exp.Expression], str] = {
    getattr(exp, name): fact
    for name, fact in (
        ("CurrentUser", "current role"),
        ("SessionUser", "current role"),
        ("CurrentRole", "current role"),
        ("CurrentCatalog", "current database"),
        ("CurrentDatabase", "current database"),
        ("CurrentSchema", "current schema"),
        ("CurrentSchemas", "current schema"),
        ("CurrentVersion", "version"),
    )
    if hasattr(exp, name)
}

SERVER_VALUES: tuple[type[exp.Expression], ...] = (*_SERVER_FACTS, exp.SessionParameter, exp.Cast, exp.Column)
"""Node classes whose every instance server_value_problem looks at: the values above, and those that may hide one."""

# Words PostgreSQL reads as the current role or database when written bare (sqlglot reads some as columns).
_BARE_SERVER_WORDS = frozenset({"user", "current_role", "current_user", "session_user", "system_user"})


def catalog_rules(dialect: str) -> CatalogRules:
    """The catalog rules for queries in `dialect`."""
    return CATALOG_RULES.get(dialect, DEFAULT)


def relation_problem(dialect: str, name: str, qualifiers: tuple[str, ...] = ()) -> str | None:
    """Why reading relation `name` (qualified by catalog and schema names) reads the engine's catalog, or None."""
    rules = catalog_rules(dialect)
    name = name.lower()
    parts = tuple(part.lower() for part in qualifiers)
    shown = ".".join((*parts, name))
    if "information_schema" in parts:
        if name in rules.described_by:
            return None
        allowed = ", ".join(sorted(rules.described_by)) or "nothing"
        return f"{shown} is not allowed: of information_schema, a query may read {allowed}"
    for part in parts:
        if part in rules.closed_schemas or (rules.closed_schema_prefix and part.startswith(rules.closed_schema_prefix)):
            return f"{shown} is not allowed: {part} is {rules.engine}'s own catalog, not the benchmark's"
    if (parts and not rules.resolves_qualified) or name in rules.open_names:
        return None
    if name in rules.closed_names or name.startswith(rules.closed_prefixes):
        if not parts and not rules.resolves_qualified:
            where = f"{rules.engine}'s catalog (write public.{name} for a benchmark table)"
            return f"{name} is not allowed: unqualified, it names {where}"
        return f"{shown} is not allowed: it is {rules.engine}'s own catalog, not the benchmark's"
    return None


def catalog_problem(node: exp.Table, dialect: str) -> str | None:
    """Why a table reference reads the engine's own catalog beyond what describes the benchmark, or None."""
    if isinstance(node.this, exp.Dot):
        return "a table name has at most three parts (catalog, schema, table)"
    if not isinstance(node.this, exp.Identifier):
        return None  # a function in FROM: the function allow-list decides
    qualifiers = tuple(part.name for part in (node.args.get("catalog"), node.args.get("db")) if part is not None)
    return relation_problem(dialect, node.name, qualifiers)


def server_value_problem(node: exp.Expression, dialect: str) -> str | None:
    """Why a value reports on the server (its role, database, settings, catalog), or None."""
    if isinstance(node, exp.Column):
        word = node.this
        if (
            dialect == "postgres"
            and not node.table
            and isinstance(word, exp.Identifier)
            and not word.quoted
            and word.name.lower() in _BARE_SERVER_WORDS
        ):
            name = word.name.lower()
            return f'{name} is not allowed: PostgreSQL reads it as the current role (write "{name}" for a column)'
        return None
    if isinstance(node, exp.Cast):
        to = node.args.get("to")
        target = to.sql(dialect="postgres").lower() if dialect == "postgres" and to is not None else ""
        if _REG_CAST.search(target):
            return f"a cast to {target} is not allowed: it looks names up in the catalog"
        return None
    if isinstance(node, exp.SessionParameter):
        return f"@@{node.name.lower()} is not allowed: it reports on the server"
    fact = _SERVER_FACTS.get(type(node))
    if fact is not None and catalog_rules(dialect).server:
        return f"the server's {fact} is not allowed in a query"
    return None
