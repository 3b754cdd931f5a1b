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

from sqlglot import exp

from biarena.db.catalog_rules import CatalogRules
from biarena.db.dialect import dialect_of

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
    return dialect_of(dialect).catalog


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
