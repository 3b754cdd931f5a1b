"""What question templates are built from: the context they read, the source a question reads from, and the drafts
they make."""

import random
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple

from sqlglot import exp

from biarena.db import Database
from biarena.generate import sql_builder as sb
from biarena.generate.column_types import ColumnTypes
from biarena.generate.phrasing import AGGREGATION_WORDS, plural, zh
from biarena.generate.roles import Dimension, Fact, Metric, Roles
from biarena.generate.sql_builder import ColumnRef


@dataclass(frozen=True)
class TemplateDraft:
    """A candidate question: its wording per language, gold SQL, and how to check it."""

    category: str
    texts: dict[str, str]
    sql: str
    tables: tuple[str, ...]
    probe_sql: str | None = None
    """For top/bottom questions: the same query with LIMIT k + 1, to find ties at the cut."""
    limit: int | None = None
    labels: tuple[str, ...] = field(default_factory=tuple)
    untranslated: tuple[str, ...] = ()
    """Languages left out because a name the question needs has no translation in the roles file."""


@dataclass
class Context:
    """What templates read: the roles, the database, a seeded random source, the days with data and the anchor."""

    roles: Roles
    db: Database
    rng: random.Random
    dates: list[str]
    anchor: datetime | None = None
    """The moment questions are asked: 'today', 'the last 7 days' are computed from it."""
    _values: dict[tuple[str, str], list] = field(default_factory=dict)
    _types: ColumnTypes | None = None

    @property
    def dialect(self) -> str:
        """The engine's sqlglot dialect: what the gold SQL is written in."""
        return self.db.dialect

    @property
    def types(self) -> ColumnTypes:
        """How the engine stores each column."""
        if self._types is None:
            self._types = ColumnTypes(self.db)
        return self._types

    def ref(self, table: str, name: str, qualified: bool = False) -> ColumnRef:
        """A typed reference to a column."""
        return self.types.ref(table, name, qualified=qualified)

    def sql(self, node: exp.Expression) -> str:
        """The expression as the engine's SQL."""
        return sb.render(node, self.dialect)

    def now(self) -> datetime:
        """The anchor, or the end of the last day with data when none was given."""
        if self.anchor is not None:
            return self.anchor
        last = date.fromisoformat(self.dates[-1]) if self.dates else date.today()
        return datetime.combine(last, datetime.max.time()).replace(microsecond=0)

    def values(self, fact: Fact, dim: Dimension) -> list:
        """Distinct values of a dimension (sorted), or [] when it has too many to group by."""
        table = dim.table or fact.table
        key = (table, dim.column)
        if key not in self._values:
            col = sb.column(ColumnRef(dim.column))
            query = (
                exp.select(col)
                .distinct()
                .from_(sb.table(table))
                .where(exp.Not(this=exp.Is(this=col, expression=exp.Null())))
            ).order_by(col)
            rows = self.db.execute(self.sql(query), max_rows=dim.max_values + 1).rows
            self._values[key] = [r[0] for r in rows] if len(rows) <= dim.max_values else []
        return self._values[key]

    def pick(self, items: list, k: int = 1) -> list:
        """k distinct items chosen by the seeded random source."""
        return self.rng.sample(items, k) if len(items) >= k else []


@dataclass(frozen=True)
class Source:
    """Where a question reads from: the fact table, joined to the tables its dimension or time column lives in."""

    fact: str
    tables: tuple[str, ...]
    joins: tuple[tuple[str, exp.Expression], ...] = ()

    @property
    def qualified(self) -> bool:
        """True when column refs need their table (a join is made)."""
        return bool(self.joins)

    def select(self, *columns: exp.Expression) -> exp.Select:
        """SELECT columns FROM the source."""
        query = exp.select(*columns).from_(sb.table(self.fact))
        for other, condition in self.joins:
            query = query.join(sb.table(other), on=condition.copy())
        return query


def join_source(ctx: Context, fact: Fact, *tables: str | None) -> Source:
    """The fact joined along the roles' join paths to each of `tables` (None: the fact itself)."""
    joins: list[tuple[str, exp.Expression]] = []
    reached = [fact.table]
    for wanted in tables:
        if wanted is None or wanted in reached:
            continue
        path = ctx.roles.join_path(fact.table, wanted)
        if path is None:
            raise ValueError(f"no join from {fact.table} to {wanted}")
        for step in path:
            if step.table in reached:
                continue
            left = sb.column(ColumnRef(step.from_column, step.from_table))
            right = sb.column(ColumnRef(step.column, step.table))
            joins.append((step.table, exp.EQ(this=left, expression=right)))
            reached.append(step.table)
    return Source(fact.table, tuple(reached), tuple(joins))


def time_table(fact: Fact) -> str | None:
    return fact.time.table if fact.time and fact.time.table and fact.time.table != fact.table else None


def question_source(ctx: Context, fact: Fact, dim: Dimension | None) -> tuple[Source, exp.Expression | None]:
    """The source a question on `fact` (and `dim`) reads, and the dimension's column expression."""
    if dim is None:
        return join_source(ctx, fact, time_table(fact)), None
    holder = dim.table if dim.table and dim.table != fact.table else None
    source = join_source(ctx, fact, holder)
    return source, sb.column(ColumnRef(dim.column, (holder or fact.table) if source.qualified else None))


class DimensionQuestion(NamedTuple):
    """What a question on an aggregated metric by a dimension is made of: the words for both, the source it reads,
    the dimension's column and the aggregated measure."""

    words: dict[str, str]
    dim_words: dict[str, str]
    source: Source
    ref: exp.Expression
    measure: exp.Expression


def dimension_question(ctx: Context, fact: Fact, metric: Metric, aggregation: str, dim: Dimension) -> DimensionQuestion:
    """The words, source, dimension column and measure of a question on `metric` aggregated by `dim`."""
    source, ref = question_source(ctx, fact, dim)
    assert ref is not None
    measure = measure_node(fact, metric, aggregation, source.qualified, ctx.dialect)
    return DimensionQuestion(metric_words(metric, aggregation), dim_words(dim), source, ref, measure)


def metric_node(fact: Fact, metric: Metric, qualified: bool, dialect: str) -> exp.Expression:
    """What a metric aggregates: its column, its expression (columns qualified by the fact when asked), or 1 for
    a count of rows."""
    if metric.rows:
        return exp.Literal.number(1)
    table = fact.table if qualified else None
    if metric.column is not None:
        return sb.column(ColumnRef(metric.column, table))
    assert metric.expression is not None
    node = exp.paren(sb.parse_expression(metric.expression, dialect), copy=False)
    if table is not None:
        for col in node.find_all(exp.Column):
            col.set("table", sb.identifier(table))
    return node


def measure_node(fact: Fact, metric: Metric, aggregation: str, qualified: bool, dialect: str) -> exp.Expression:
    if metric.rows:
        return sb.count_rows()
    return sb.aggregate(aggregation, metric_node(fact, metric, qualified, dialect))


def as_value(node: exp.Expression, name: str = "value") -> exp.Expression:
    return exp.alias_(node, name)


def equals(node: exp.Expression, value: object, dialect: str) -> exp.Expression:
    return exp.EQ(this=node.copy(), expression=sb.literal(value, dialect))


def covered(texts: dict[str, str], *names: dict[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The texts whose language every name has a translation in, and the languages left out."""
    kept = {lang: text for lang, text in texts.items() if all(n.get(lang, "").strip() for n in names)}
    return kept, tuple(lang for lang in texts if lang not in kept)


def make_draft(
    category: str,
    texts: dict[str, str],
    names: list[dict[str, str]],
    sql: str,
    tables: tuple[str, ...],
    **extra: object,
) -> TemplateDraft:
    kept, left_out = covered(texts, *names)
    return TemplateDraft(category, kept, sql, tables, untranslated=left_out, **extra)  # type: ignore[arg-type]


def metric_words(metric: Metric, aggregation: str) -> dict[str, str]:
    """How a question names the aggregated metric: "total sales", "number of rentals" (never "total total")."""
    agg = AGGREGATION_WORDS[aggregation]
    english, chinese = metric.names["en"], metric.names.get("zh", "")
    said = aggregation in ("sum", "count") and agg["en"].split()[0] in english.lower().split()
    return {
        "en": english if said else f"{agg['en']} {english}",
        "zh": chinese if chinese.startswith(agg["zh"]) else zh(agg["zh"], chinese),
    }


def dim_words(dim: Dimension) -> dict[str, str]:
    return {
        "en": dim.names["en"],
        "zh": dim.names.get("zh", ""),
        "en_plural": dim.plural.get("en", plural(dim.names["en"])),
    }


def combinations(ctx: Context, joined: bool | None = False) -> list[tuple[Fact, Metric, str, Dimension]]:
    """(fact, metric, aggregation, dimension) choices; `joined` picks dimensions on other tables (False: the fact's
    own, or its joined ones when it has none of its own: a line table's dimensions are all on other tables)."""
    out = []
    for fact in ctx.roles.facts:
        usable = [d for d in fact.dimensions if ctx.values(fact, d)]
        own = [d for d in usable if d.table is None or d.table == fact.table]
        if joined is None:
            dims = usable
        elif joined:
            dims = [d for d in usable if d not in own]
        else:
            dims = own or usable
        for metric in fact.metrics:
            for aggregation in metric.aggregations:
                out.extend((fact, metric, aggregation, dim) for dim in dims)
    ctx.rng.shuffle(out)
    return out
