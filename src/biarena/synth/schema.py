"""What a spec fixes about its tables: their order, each column's stored type, the columns other tables read, and
moments as seconds since 1970 (how every timestamp is held while drawing)."""

import itertools
from datetime import date, datetime
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from biarena.errors import FormatError
from biarena.synth.spec import Rule, Spec

Columns = dict[str, np.ndarray]
"""A table's rows (a chunk, or the columns kept for children) as one array per column name."""
EPOCH = datetime(1970, 1, 1)
DAY = 86_400
"""Seconds in a day."""


def table_order(spec: Spec) -> list[str]:
    """Tables with parents before children."""
    deps = {
        name: {c.ref.split(".")[0] for c in t.columns.values() if c.kind == "foreign" and c.ref}
        for name, t in spec.tables.items()
    }
    done: list[str] = []
    while len(done) < len(deps):
        ready = [n for n in deps if n not in done and deps[n] <= set(done) | {n}]
        if not ready:
            raise FormatError(f"spec '{spec.name}': foreign keys form a cycle among {sorted(set(deps) - set(done))}")
        done.extend(sorted(ready))
    return done


def column_type(spec: Spec, table: str, name: str) -> str:
    """The stored type of a column: int, float, text, timestamp or date."""
    column = spec.tables[table].columns[name]
    kind = column.kind
    if kind in ("sequence",):
        return "int"
    if kind == "foreign":
        parent, key = (column.ref or ".").split(".")
        return column_type(spec, parent, key)
    if kind == "inherit":
        hops, last = spec.path(table, column.via or "", column.of or "")
        return column_type(spec, hops[-1][2], last)
    if kind in ("timestamp", "after"):
        return "timestamp"
    if kind == "date":
        return "date"
    if kind in ("normal", "uniform", "poisson"):
        return "int" if column.round == 0 else "float"
    if kind == "category":
        labels = list(column.values or [])
        if labels and all(isinstance(v, int) and not isinstance(v, bool) for v in labels):
            return "int"
        if labels and all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels):
            return "float"
        return "text"
    if kind == "constant":
        values = [column.value] + [
            v for rule in spec.rules if (rule.table, rule.column) == (table, name) for v in _rule_values(rule)
        ]
        present = [v for v in values if v is not None]
        if not present or any(isinstance(v, str) for v in present):
            return "text"
        if any(isinstance(v, float) or (isinstance(v, dict) and v.get("round") != 0) for v in present):
            return "float"
        return "int"
    return "text"


def parent_of(spec: Spec, table: str, name: str) -> str:
    """The table a `via` column reaches: the parent of the foreign column it names."""
    via = spec.tables[table].columns[spec.tables[table].columns[name].via or ""]
    return (via.ref or ".").split(".")[0]


def condition_columns(condition: str) -> set[str]:
    """The column names a SQL condition reads."""
    return {c.name for c in sqlglot.parse_one(condition).find_all(exp.Column)}


def _rule_values(rule: Rule) -> list[Any]:
    return [rule.otherwise, *(case.then for case in rule.branches())]


def seconds(moment: datetime | date) -> int:
    """Seconds since 1970 of a moment (a date is its midnight)."""
    if not isinstance(moment, datetime):
        moment = datetime.combine(moment, datetime.min.time())
    return int((moment - EPOCH).total_seconds())


def retained_columns(spec: Spec) -> dict[str, set[str]]:
    """Columns other tables read: referenced keys and the columns that weight the choice of parents."""
    out: dict[str, set[str]] = {name: set() for name in spec.tables}
    for name, table in spec.tables.items():
        for column in table.columns.values():
            if column.kind == "foreign" and column.ref:
                parent, key = column.ref.split(".")
                out[parent].add(key)
                if column.weight:
                    out[parent].add(column.weight["column"])
                out[parent] |= {bound for bound in (column.follows, column.until) if bound}
                if column.where:
                    out[parent] |= condition_columns(column.where) & set(spec.tables[parent].columns)
                if column.match:
                    out[parent].add(str(column.match["column"]))
                    other = (table.columns[str(column.match["via"])].ref or ".").split(".")[0]
                    out[other].add(str(column.match.get("of", column.match["column"])))
            paths = [(column.via, column.of or "")] if column.via else []
            bounds = [*(column.not_before or []), *(column.not_after or [])]
            paths += [tuple(base.split(".", 1)) for base in bounds if "." in base]
            paths += [tuple(column.at.split(".", 1))] if column.at and "." in column.at else []
            for via, of in paths:
                hops, last = spec.path(name, via, of)
                for (_, _, parent, _), (_, step, _, _) in itertools.pairwise(hops):
                    out[parent].add(step)
                out[hops[-1][2]].add(last)
    return out
