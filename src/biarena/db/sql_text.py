"""sql_text: the one place SQL text is assembled: identifiers quoted by the dialect, values bound or as literals.

Statements are written as templates with `{name}` fields, as in `psycopg.sql`, and `compose` fills each field by
what it is given: a `str` is an identifier (quoted by sqlglot for the dialect), an `Sql` is text already assembled,
a `Literal` (or an `int`) is a value rendered by sqlglot where the engine cannot bind it, and a list or tuple is its
items rendered the same way and joined by commas. Values that the engine can bind go in as `?` parameters instead.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from string import Formatter


class Sql(str):
    """SQL text already assembled (by `compose`, or written out whole in the code): inserted as it is."""

    __slots__ = ()


@dataclass(frozen=True)
class Literal:
    """A value rendered as an SQL literal, for the places an engine cannot bind a parameter (DDL, PRAGMA, LIMIT)."""

    value: object


Part = str | Sql | Literal | int | Sequence["Part"]

_ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_identifier(name: str, dialect: str | None = None) -> Sql:
    """A table or column name quoted for the dialect, whatever characters it holds."""
    from sqlglot import exp  # loaded when first needed: an engine process composes without parsing

    return Sql(exp.to_identifier(name, quoted=True).sql(dialect=dialect))


def quote_literal(value: object, dialect: str | None = None) -> Sql:
    """A Python value (text, number, bytes, None, bool) as an SQL literal of the dialect."""
    from sqlglot import exp

    return Sql(exp.convert(value).sql(dialect=dialect))


def qualified(alias: str, name: str, dialect: str | None = None) -> Sql:
    """A column of a table alias written in the statement (`c."name"`); the alias is a plain word, left unquoted."""
    if not _ALIAS.fullmatch(alias):
        raise ValueError(f"not a plain alias: {alias!r}")
    return Sql(f"{alias}.{quote_identifier(name, dialect)}")


def placeholders(count: int) -> Sql:
    """`?, ?, ...`: one bound parameter per value."""
    return Sql(", ".join("?" * count))


def compose(template: str, /, dialect: str | None = None, **parts: Part) -> Sql:
    """The template with each `{field}` filled by its part: identifiers quoted, literals rendered, `Sql` as it is."""
    out = []
    for text, field, spec, conversion in Formatter().parse(template):
        out.append(text)
        if field is None:
            continue
        if spec or conversion or field not in parts:
            raise ValueError(f"SQL template field {{{field}}} is unknown or carries a format: {template!r}")
        out.append(_render(parts[field], dialect))
    return Sql("".join(out))


def _render(part: Part, dialect: str | None) -> str:
    if isinstance(part, Sql):
        return part
    if isinstance(part, str):
        return quote_identifier(part, dialect)
    if isinstance(part, Literal):
        return quote_literal(part.value, dialect)
    if isinstance(part, int) and not isinstance(part, bool):
        return str(part)
    if isinstance(part, list | tuple):
        return ", ".join(_render(item, dialect) for item in part)
    raise TypeError(f"cannot put a {type(part).__name__} into SQL text; bind it as a parameter")
