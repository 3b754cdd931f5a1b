"""Queries over a child table joined to its parent rows: the rows with their parent's columns, the rows per kind
of parent, and the evidence of a weighted link that those counts support."""

from typing import Any

from sqlglot import exp

from biarena.generate.corgi_suite.common import WeightedLink, col, count_star, join_on, select_from, sql
from biarena.generate.corgi_suite.gold_drafts import descending


def parent_rows(table: str, name: str, parent: str, key: str, *columns: exp.Expression) -> exp.Select:
    """SELECT columns FROM table AS t JOIN parent AS p ON t.name = p.key: each row beside its parent row."""
    return join_on(select_from(table, *columns, alias="t"), parent, "p", col(name, "t"), col(key, "p"))


def parent_counts(table: str, name: str, parent: str, key: str, by: str, *columns: exp.Expression) -> exp.Select:
    """The rows of `table` (as n, and `columns`) per value of their parent's column `by`, the most first."""
    query = parent_rows(table, name, parent, key, col(by, "p"), count_star(), *columns)
    return query.group_by(col(by, "p")).order_by(descending(exp.column("n")))


def link_evidence(link: WeightedLink, *columns: exp.Expression) -> dict[str, Any]:
    """The evidence of a weighted link: its generating weights, and the rows per kind of parent that show them."""
    return {
        "kind": "segment",
        "parameters": {"table": link.table, "parent": link.parent, "by": link.by, "weights": link.weights},
        "support_sql": [sql(parent_counts(link.table, link.column, link.parent, link.key, link.by, *columns))],
    }
