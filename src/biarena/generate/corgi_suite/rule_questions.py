"""Rule questions of CORGI's type 2: why the data follow the simulator's relational and operating rules (matched
parents, lifecycle conditions, ranges by category, rules that set a value), each with the rows that show it."""

from sqlglot import exp

from biarena.generate import sql_builder as sb
from biarena.generate.corgi_suite.common import (
    SuiteDraft,
    col,
    condition,
    condition_words,
    count_star,
    is_definition,
    is_value,
    join_on,
    operating_rules,
    select_from,
    sql,
    value_words,
)
from biarena.generate.corgi_suite.parent_rows import parent_rows
from biarena.generate.corgi_suite.spec_roles import noun, words
from biarena.synth.spec import Column, Rule, Spec

MATCH_TENDENCY = 0.99
"""A key match at this share or above keeps keys consistent; only a lower share is a tendency worth a question."""


def rule_questions(spec: Spec) -> list[SuiteDraft]:
    """Consequences of relational rules: matched parents, lifecycle conditions, ranges by category, and the
    operating rules that set a value."""
    out = []
    for table, spec_table in spec.tables.items():
        for name, column in spec_table.columns.items():
            if column.kind == "foreign" and column.ref and column.match:
                matched = _match_why(spec, table, name, column)
                if matched is None:
                    continue  # a key kept consistent (a payout's host is its trip's host): nothing to explain
                out.append(matched)
            if column.kind == "foreign" and column.ref and column.where:
                out.append(_lifecycle_why(spec, table, name, column))
            if column.ranges:
                out.append(_range_why(spec, table, name, column))
    for rule in operating_rules(spec):
        if not rule.description or not is_value(spec, rule.table, rule.column) or is_definition(rule):
            continue
        out.append(_rule_why(spec, rule))
    return out


def _match_why(spec: Spec, table: str, name: str, column: Column) -> SuiteDraft | None:
    """Why most rows share a place with another parent (None when the key is kept consistent on every row)."""
    spec_table = spec.tables[table]
    parent, key = column.ref.split(".")
    match = column.match
    via = str(match["via"])
    other, other_key = str(spec_table.columns[via].ref).split(".")
    same = str(match.get("of", match["column"]))
    place = words(str(match["column"]).removesuffix("_id"))
    share = float(match.get("share", 1.0))
    if share >= MATCH_TENDENCY:
        return None
    things, about = noun(spec, table), f"That is how the business works: about {share * 100:.0f} in 100"
    one = ("an " if words(parent)[:1] in "aeiou" else "a ") + words(parent)
    if str(match["column"]) == key:  # the parent is the place itself (a vehicle's market)
        asked = f"Why do most {things} have the same {place} as their {noun(spec, other)}?"
        told = f"{about} {things} have the same {place} as their {words(other)}; the rest differ."
    elif same == other_key:  # the other parent is the place itself (an item's category)
        asked = f"Why do most {things} have {noun(spec, parent)} from their own {place}?"
        told = f"{about} {things} get {one} of their own {place}; the rest cross over."
    else:
        asked = f"Why do most {things} have {noun(spec, parent)} from the same {place} as their {noun(spec, other)}?"
        told = f"{about} {things} get {one} from the same {place} as their {words(other)}; the rest cross over."
    return SuiteDraft(
        asked,
        told,
        [table, parent, other],
        "match-why",
        {
            "kind": "rule",
            "parameters": {"table": table, "column": name, "match": match},
            "support_sql": [_same_place(table, name, parent, key, other, via, other_key, match, same)],
        },
        ["corgi:rule"],
    )


def _lifecycle_why(spec: Spec, table: str, name: str, column: Column) -> SuiteDraft:
    """Why some parents never get a row: the lifecycle condition a foreign key is drawn under."""
    assert column.ref is not None and column.where is not None
    parent, key = column.ref.split(".")
    return SuiteDraft(
        f"Why do some {noun(spec, parent)} never get any {noun(spec, table)}?",
        f"Only some {noun(spec, parent)} can have {noun(spec, table)}: the business records "
        f"{noun(spec, table)} only for {noun(spec, parent)} where {condition_words(column.where)}; "
        "the others stop earlier in their lifecycle.",
        [table, parent],
        "lifecycle-why",
        {
            "kind": "rule",
            "parameters": {"table": table, "column": name, "where": column.where},
            "support_sql": [_never_reached(table, name, parent, key, column.where)],
        },
        ["corgi:rule"],
    )


def _range_why(spec: Spec, table: str, name: str, column: Column) -> SuiteDraft:
    """Why a column differs so much between categories: each category's range."""
    assert column.ranges is not None
    by = column.ranges["column"]
    bounds = column.ranges["values"]
    ordered = sorted(bounds, key=lambda v: bounds[v][0])
    return SuiteDraft(
        f"Why does {words(name)} differ so much between {value_words(ordered[0])} and "
        f"{value_words(ordered[-1])} {noun(spec, table)}?",
        f"{words(name).capitalize()} follows the {words(by)}: each {words(by)} has its own range ("
        + ", ".join(f"{value_words(v)} {bounds[v][0]} to {bounds[v][1]}" for v in ordered)
        + ").",
        [table],
        "range-why",
        {
            "kind": "rule",
            "parameters": {"table": table, "column": name, "ranges": column.ranges},
            "support_sql": [
                sql(
                    select_from(table, col(by), exp.Min(this=col(name)), exp.Max(this=col(name)))
                    .group_by(col(by))
                    .order_by(col(by))
                )
            ],
        },
        ["corgi:rule"],
    )


def _rule_why(spec: Spec, rule: Rule) -> SuiteDraft:
    """Why a value differs between rows: the operating rule that sets it."""
    return SuiteDraft(
        f"Why does the {words(rule.column)} differ between our {noun(spec, rule.table)}?",
        f"A business rule sets it ({value_words(rule.name)}), and the data follow it on every row; the "
        "policy is stated in the business description.",
        [rule.table],
        "rule-why",
        {
            "kind": "rule",
            "parameters": {"rule": rule.model_dump(mode="json")},
            "support_sql": [
                sql(
                    select_from(rule.table, col(rule.column), count_star())
                    .group_by(col(rule.column))
                    .order_by(exp.Ordered(this=exp.column("n"), desc=True))
                )
            ],
        },
        ["corgi:rule"],
    )


def _same_place(
    table: str, name: str, parent: str, key: str, other: str, via: str, other_key: str, match: dict, same: str
) -> str:
    """Rows whose parent and other row are in the same place, and the others."""
    same_place = exp.alias_(exp.EQ(this=col(str(match["column"]), "p"), expression=col(same, "o")), "same_place")
    query = parent_rows(table, name, parent, key, same_place, count_star())
    query = join_on(query, other, "o", col(via, "t"), col(other_key, "o"))
    return sql(query.group_by(exp.EQ(this=col(str(match["column"]), "p"), expression=col(same, "o"))))


def _never_reached(table: str, name: str, parent: str, key: str, where: str) -> str:
    """Parents outside a lifecycle condition that have no child row (none, when the rule holds)."""
    children = select_from(table, exp.Literal.number(1), alias="t").where(
        exp.EQ(this=col(name, "t"), expression=col(key, "p"))
    )
    outside = exp.Not(this=exp.Paren(this=condition(where)))
    query = select_from(parent, count_star(), alias="p").where(
        exp.and_(outside, exp.Not(this=exp.Exists(this=children)))
    )
    return sql(query.having(exp.GT(this=sb.count_rows(), expression=exp.Literal.number(0))))
