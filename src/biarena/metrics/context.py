"""The metrics' side of the scoring context: results as typed columns, and whether a query orders its rows.

ScoringContext itself lives in `biarena.scoring` (the layer below); it is named here too for the metrics' use.
"""

from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import QueryResult
from biarena.metrics.columns import Column
from biarena.metrics.result_similarity import to_columns
from biarena.scoring.budget import ScoringBudget
from biarena.scoring.scoring_context import Outcome, ScoringContext

__all__ = ["Outcome", "ScoringBudget", "ScoringContext", "orders_rows", "result_columns"]


def result_columns(context: ScoringContext, result: QueryResult) -> list[Column]:
    """The result split into typed columns, once for all the scorers that compare it."""
    return context.per_result(result, "columns", lambda: to_columns(result))


@lru_cache(maxsize=4096)
def orders_rows(sql: str, dialect: str = "sqlite") -> bool:
    """True when the query's outermost statement has an ORDER BY, so row order is part of the answer."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return False
    except RecursionError:
        return False
    return tree is not None and tree.args.get("order") is not None and isinstance(tree, exp.Query)
