"""spec_roles: what a vertical's spec says its tables and columns are: nouns, timestamps, measures, busiest tables."""

from biarena.synth.spec import Column, Spec


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
