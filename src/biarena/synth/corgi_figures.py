"""CORGI's schema figures (CORGI, Table 1): tables, columns per table and foreign keys of each vertical's
published database, the size a simulated vertical is measured against. They are declared on the vertical's line in
`VERTICALS` (`corgi(...)`), beside its spec file."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SchemaFigures:
    """How big a schema is: tables, average columns per table, foreign-key relationships."""

    tables: int
    columns_per_table: float
    foreign_keys: int


CORGI = "corgi_figures"
"""The key of a vertical's registry facts that holds CORGI's figures of it."""


def corgi(tables: int, columns_per_table: float, foreign_keys: int) -> dict[str, Any]:
    """A vertical's registry facts for CORGI's published database of it (its registry line's second half)."""
    return {CORGI: SchemaFigures(tables, columns_per_table, foreign_keys)}
