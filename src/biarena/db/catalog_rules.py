"""CatalogRules: what one engine lets a query read of its own catalog (each dialect holds its own)."""

from dataclasses import dataclass

DESCRIBING_VIEWS = """
    schemata tables views columns
    table_constraints key_column_usage referential_constraints check_constraints
    constraint_column_usage constraint_table_usage
"""
"""The standard views that show the benchmark's schemas, tables, columns, views, keys and constraints."""


def names(*groups: str) -> frozenset[str]:
    """The whitespace-separated names of `groups`, as one set."""
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


DEFAULT = CatalogRules(engine="the engine", described_by=names(DESCRIBING_VIEWS), resolves_qualified=False)
"""For an engine without rules of its own: information_schema's describing views; server values refused."""
