"""roles_from_spec: the template factory's column roles, read off a vertical's spec (no hand-written roles file)."""

from biarena.generate.roles import Dimension, Fact, Join, Metric, Roles, TimeRole
from biarena.synth.spec import Column, Spec

_AVERAGED = (
    "rating",
    "stars",
    "score",
    "age",
    "pct",
    "percent",
    "position",
    "rate",
    "level",
    "minutes",
    "days",
    "hours",
)
"""Columns that are averaged, never summed (a sum of ratings means nothing)."""


def noun(spec: Spec, table: str) -> str:
    """What a table's rows are called, plural."""
    given = spec.tables[table].noun
    if given:
        return given
    words = table.replace("_", " ")
    return words if words.endswith("s") else words + "s"


def words(column: str) -> str:
    """A column name as words."""
    return column.replace("_", " ")


def stamp_of(spec: Spec, table: str) -> str | None:
    """The table's first timestamp column."""
    return spec.tables[table].stamp


def reached(spec: Spec, table: str, name: str) -> Column:
    """The column that decides a column's values: an inherited column's source, else the column itself."""
    column = spec.tables[table].columns[name]
    if column.kind != "inherit":
        return column
    hops, last = spec.path(table, column.via or "", column.of or "")
    return reached(spec, hops[-1][2], last)


def is_category(spec: Spec, table: str, name: str) -> bool:
    """A category column, drawn here or inherited from a parent's."""
    return reached(spec, table, name).kind == "category"


def metric_columns(spec: Spec, table: str) -> list[str]:
    """Numeric measure columns: drawn numbers and the amounts rules compute."""
    out = []
    ruled = {r.column for r in spec.rules if r.table == table}
    for name, column in spec.tables[table].columns.items():
        if reached(spec, table, name).kind in ("normal", "uniform", "poisson") or (
            column.kind == "constant" and name in ruled and isinstance(column.value, float)
        ):
            out.append(name)
    return out


def fact_tables(spec: Spec, limit: int = 3) -> list[str]:
    """The busiest timed tables (most rows), planted-event tables first."""
    timed = [t for t, table in spec.tables.items() if table.scaled and stamp_of(spec, t)]
    planted = [p.table for p in spec.planted if p.table in timed]
    ranked = sorted(timed, key=lambda t: (t not in planted, -spec.tables[t].rows, t))
    return ranked[:limit]


def _dimension_name(spec: Spec, table: str, column: str, on_fact: bool) -> str:
    if on_fact:
        return words(column)
    if column == "name":
        return words(table)
    return f"{words(table)} {words(column)}"


def roles_from_spec(spec: Spec, database: str, facts: list[str] | None = None) -> Roles:
    """Facts (timed tables with measures), their metrics, category dimensions on them and on parents one join away."""
    out: list[Fact] = []
    joins: list[Join] = []
    for table in facts or fact_tables(spec):
        columns = spec.tables[table].columns
        metrics = [
            Metric(
                column=name,
                aggregations=["avg", "max", "min"] if any(k in name for k in _AVERAGED) else ["sum", "avg"],
                names={"en": words(name)},
            )
            for name in metric_columns(spec, table)
        ]
        if not metrics:
            continue
        dimensions = [
            Dimension(column=name, names={"en": _dimension_name(spec, table, name, True)})
            for name in columns
            if is_category(spec, table, name)
        ]
        ids = [name for name, column in columns.items() if column.kind in ("sequence", "foreign")]
        for name, column in columns.items():
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            parent_dims = [c for c, col in spec.tables[parent].columns.items() if col.kind == "category"]
            if not parent_dims or any({j.left.split(".")[0], j.right.split(".")[0]} == {table, parent} for j in joins):
                continue
            joins.append(Join(left=f"{table}.{name}", right=f"{parent}.{key}"))
            dimensions += [
                Dimension(column=c, table=parent, names={"en": _dimension_name(spec, parent, c, False)})
                for c in parent_dims
            ]
        out.append(
            Fact(
                table=table,
                names={"en": noun(spec, table)},
                metrics=metrics,
                dimensions=dimensions,
                time=TimeRole(column=stamp_of(spec, table) or "", grain="day"),
                ids=ids,
            )
        )
    return Roles(database=database, facts=out, joins=joins, recent_days=7)
