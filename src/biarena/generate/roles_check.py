"""check_roles: a roles file read against its database, so a misspelt table or column is one line naming both."""

import difflib
from pathlib import Path

from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import Database
from biarena.db.errors import SqlProblem
from biarena.errors import FormatError
from biarena.generate import sql_builder as sb
from biarena.generate.roles import Roles


def check_roles(roles: Roles, db: Database, path: str | Path) -> None:
    """Raise FormatError naming the file, the fact and the column of the first role the database does not have."""
    columns = _columns(db)

    def table(name: str, where: str) -> set[str]:
        if name not in columns:
            raise FormatError(f"{path}: {where}: no table '{name}' in the database{_near(name, columns)}")
        return columns[name]

    def column(name: str, in_table: str, where: str) -> None:
        if name not in table(in_table, where):
            known = columns[in_table]
            raise FormatError(f"{path}: {where}: table '{in_table}' has no column '{name}'{_near(name, known)}")

    for fact in roles.facts:
        at = f"fact '{fact.table}'"
        table(fact.table, at)
        for metric in fact.metrics:
            if metric.column is not None:
                column(metric.column, fact.table, f"{at}, metric column")
            if metric.expression is not None:
                _check_expression(metric.expression, fact.table, db.dialect, path, f"{at}, metric expression", column)
        for dim in fact.dimensions:
            holder = dim.table or fact.table
            column(dim.column, holder, f"{at}, dimension column")
            if dim.table and dim.table != fact.table and roles.join_path(fact.table, dim.table) is None:
                raise FormatError(
                    f"{path}: {at}, dimension column '{dim.column}': no join leads from '{fact.table}' to '{dim.table}'"
                )
        if fact.time:
            holder = fact.time.table or fact.table
            column(fact.time.column, holder, f"{at}, time column")
            if holder != fact.table and roles.join_path(fact.table, holder) is None:
                raise FormatError(f"{path}: {at}, time column: no join leads from '{fact.table}' to '{holder}'")
        for name in fact.ids:
            column(name, fact.table, f"{at}, id column")
    for join in roles.joins:
        for side in (join.left, join.right):
            name, _, col = side.partition(".")
            column(col, name, f"join {join.left} = {join.right}")
    for mapping in roles.mappings:
        at = f"mapping '{mapping.table}'"
        column(mapping.code, mapping.table, f"{at}, code column")
        for meaning in mapping.meaning.values():
            column(meaning, mapping.table, f"{at}, meaning column")
        if mapping.where:
            try:
                condition = exp.condition(mapping.where, dialect=db.dialect)
                query = exp.select(exp.Literal.number(1)).from_(sb.table(mapping.table)).where(condition).limit(1)
                db.execute(sb.render(query, db.dialect))
            except (SqlProblem, SqlglotError) as error:
                reason = " ".join(str(error).split())
                raise FormatError(f"{path}: {at}, where: '{mapping.where}' fails: {reason}") from None


def _check_expression(text: str, table: str, dialect: str, path: str | Path, where: str, column: object) -> None:
    """An expression that parses in the dialect as one expression, no query in it, naming only the fact's columns."""
    try:
        node = sb.parse_expression(text, dialect)
    except (SqlglotError, ValueError) as error:
        reason = " ".join(str(error).split())
        raise FormatError(f"{path}: {where}: '{text}' is not an SQL expression: {reason}") from None
    if node.find(exp.Select, exp.Subquery) is not None:
        raise FormatError(f"{path}: {where}: '{text}' may name the fact's columns, not a query")
    for ref in node.find_all(exp.Column):
        column(ref.name, table, where)  # type: ignore[operator]


def _columns(db: Database) -> dict[str, set[str]]:
    return {name: set(db.sample_rows(name, 0).columns) for name in db.tables()}


def _near(name: str, known: set[str] | dict) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
