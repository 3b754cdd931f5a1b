"""BIS SQL semantic similarity: an AST diff where keeps, moves and aliases are free and a changed table is fatal."""

import re
from collections import Counter
from dataclasses import dataclass
from itertools import chain

import sqlglot
from sqlglot import exp
from sqlglot.diff import ChangeDistiller, Insert, Keep, Move, Remove, Update
from sqlglot.errors import SqlglotError

from biarena.scoring.budget import NO_DEADLINE, Deadline, OverBudget, ScoringBudget

_ALIAS_NODES = (exp.Alias, exp.TableAlias)
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class SemanticSimilarity:
    """The similarity and the edit counts behind it."""

    value: float
    counted: int
    total: int
    table_changed: bool
    over_budget: str | None = None
    """Why the queries were not compared (too large, too deep, too slow); the value is then 0."""


@dataclass(frozen=True)
class ComparableQuery:
    """A query as the diff compares it: in the target dialect, aliases renamed by position, its size known."""

    tree: exp.Expression
    nodes: int


def _cte_names(*trees: exp.Expression) -> set[str]:
    names: set[str] = set()
    for tree in trees:
        for cte in tree.find_all(exp.CTE):
            names.add(cte.alias_or_name.lower())
    return names


def _is_alias(node: exp.Expression) -> bool:
    if isinstance(node, _ALIAS_NODES):
        return True
    parent = node.parent
    return isinstance(node, exp.Identifier) and isinstance(parent, _ALIAS_NODES) and parent.args.get("alias") is node


def _table_of(node: exp.Expression) -> exp.Table | None:
    if isinstance(node, exp.Table):
        return node
    if isinstance(node, exp.Identifier) and isinstance(node.parent, exp.Table) and node.parent.this is node:
        return node.parent
    return None


def _table_names(tree: exp.Expression, ctes: set[str]) -> Counter:
    return Counter(t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() not in ctes)


def canonical_aliases(tree: exp.Expression, *, copy: bool = True) -> exp.Expression:
    """Rename CTEs and table aliases to names derived from position, so renaming them is no edit."""
    ctes: dict[str, str] = {}
    for index, cte in enumerate(tree.find_all(exp.CTE)):
        ctes.setdefault(cte.alias_or_name.lower(), f"cte_{index}")
    aliases: dict[str, str] = {}
    counts: Counter = Counter()
    if copy:
        tree = tree.copy()
    for table in tree.find_all(exp.Table):
        base = ctes.get(table.name.lower(), table.name.lower())
        counts[base] += 1
        # An unaliased table is its own alias: `t.a FROM t` reads like `x.a FROM t AS x`.
        key = (table.alias or table.name).lower()
        aliases.setdefault(key, f"{base}_{counts[base]}")
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(key)))

    def rename(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and node.name.lower() in ctes:
            node.set("this", exp.to_identifier(ctes[node.name.lower()]))
        elif isinstance(node, exp.TableAlias):
            key = node.name.lower()
            new = ctes.get(key) if isinstance(node.parent, exp.CTE) else aliases.get(key)
            if new:
                node.set("this", exp.to_identifier(new))
        elif isinstance(node, exp.Column) and node.table:
            key = node.table.lower()
            new = aliases.get(key) or ctes.get(key)
            if new:
                node.set("table", exp.to_identifier(new))
        return node

    return tree.transform(rename, copy=False)


def _measure(tree: exp.Expression, budget: ScoringBudget) -> int:
    """The tree's node count; OverBudget when it has too many nodes or nests too deeply."""
    nodes = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > budget.max_nodes:
            raise OverBudget(f"the query has more than {budget.max_nodes:,} syntax nodes (the scoring budget)")
        if depth > budget.max_depth:
            raise OverBudget(f"the query nests deeper than {budget.max_depth} levels (the scoring budget)")
        stack.extend((child, depth + 1) for child in node.iter_expressions())
    return nodes


LENIENT_DIALECTS = ("mysql",)
"""Dialects a query is read in when the benchmark's own cannot tokenize it: MySQL's reader takes backslash-escaped
quotes ('it\\'s') and backquoted names, which models write and BIS's script (sqlglot's default reader) accepts."""


def parse_leniently(sql: str, dialect: str) -> list[exp.Expression] | None:
    """`sql`'s statements read in `dialect`, else in the first lenient dialect that reads it; None when none does."""
    for reader in (dialect, *(d for d in LENIENT_DIALECTS if d != dialect)):
        try:
            return [s for s in sqlglot.parse(sql, read=reader) if s is not None]
        except SqlglotError:
            continue
    return None


def comparable(
    source: str | exp.Expression,
    dialect: str,
    target: str | None = None,
    *,
    budget: ScoringBudget | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> ComparableQuery | None:
    """`source` (SQL text, or a tree parsed in `dialect`) ready to diff; None when it is not one valid query.

    Both queries pass through the target dialect (written, then parsed again) so that dialect spellings
    compare equal. Raises OverBudget when the query is too large, too deep or too slow to compare.
    """
    budget = budget or ScoringBudget()
    target = target or dialect
    try:
        if isinstance(source, str):
            if len(source) > budget.max_sql_chars:
                raise OverBudget(
                    f"the query is {len(source):,} characters, over the {budget.max_sql_chars:,}-character "
                    "scoring budget"
                )
            statements = parse_leniently(source, dialect)
            if statements is None or len(statements) != 1:
                return None
            source = statements[0]
        deadline.check()
        text = source.sql(dialect=target)
        deadline.check()
        tree = sqlglot.parse_one(text, read=target)
    except SqlglotError:
        return None
    except RecursionError:
        raise OverBudget("the query nests too deeply to compare") from None
    nodes = _measure(tree, budget)
    deadline.check()
    for identifier in tree.find_all(exp.Identifier):
        # `name`, "name" and name are one name: quoting a plain name is no edit
        if identifier.quoted and _PLAIN_NAME.match(identifier.name):
            identifier.set("quoted", False)
    return ComparableQuery(canonical_aliases(tree, copy=False), nodes)


class _BudgetedDistiller(ChangeDistiller):
    """sqlglot's Change Distiller, stopping at a deadline while it weighs node pairs."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline
        self._weighed = 0

    def _dice_coefficient(self, source: exp.Expression, target: exp.Expression) -> float:
        self._weighed += 1
        if not self._weighed & 255:
            self._deadline.check()
        return super()._dice_coefficient(source, target)


def _diff(source: exp.Expression, target: exp.Expression, deadline: Deadline) -> list:
    """sqlglot.diff(source, target, delta_only=False), with a deadline."""
    source_nodes, target_nodes = tuple(source.walk()), tuple(target.walk())
    source_ids, target_ids = {id(n) for n in source_nodes}, {id(n) for n in target_nodes}
    if len(source_nodes) != len(source_ids) or len(target_nodes) != len(target_ids) or source_ids & target_ids:
        # The diff needs trees that share no node (as sqlglot.diff does, work on copies).
        return _diff(source.copy(), target.copy(), deadline)
    # Hashes cached on the nodes for the diff's many equality tests, and cleared afterwards.
    for node in chain(reversed(source_nodes), reversed(target_nodes)):
        node._hash = hash(node)
    try:
        return _BudgetedDistiller(deadline).diff(source, target, delta_only=False)
    finally:
        for node in chain(source_nodes, target_nodes):
            node._hash = None


def compare(
    gold: ComparableQuery,
    predicted: ComparableQuery,
    *,
    budget: ScoringBudget | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> SemanticSimilarity:
    """BIS 5.1 similarity of two comparable queries; OverBudget when the diff would be too large or slow."""
    budget = budget or ScoringBudget()
    gold_tree, pred_tree = gold.tree, predicted.tree
    ctes = _cte_names(gold_tree, pred_tree)
    if set(_table_names(gold_tree, ctes)) != set(_table_names(pred_tree, ctes)):
        # The queries read different tables: BIS's "changed table" rule, whatever the diff would say.
        return SemanticSimilarity(0.0, 0, 0, True)
    if gold.nodes * predicted.nodes > budget.max_pairs:
        raise OverBudget(
            f"the diff would weigh {gold.nodes * predicted.nodes:,} node pairs, over the "
            f"{budget.max_pairs:,} of the scoring budget"
        )
    try:
        edits = _diff(gold_tree, pred_tree, deadline)
    except RecursionError:
        raise OverBudget("the query nests too deeply to compare") from None
    if not edits:
        return SemanticSimilarity(1.0, 0, 0, False)
    counted = 0
    removed_tables: Counter = Counter()
    inserted_tables: Counter = Counter()
    for edit in edits:
        if isinstance(edit, Keep | Move):
            continue
        nodes = [edit.source, edit.target] if isinstance(edit, Update) else [edit.expression]
        tables = [t for t in (_table_of(n) for n in nodes) if t is not None and t.name.lower() not in ctes]
        if tables and isinstance(edit, Insert | Remove):
            bucket = inserted_tables if isinstance(edit, Insert) else removed_tables
            bucket[tables[0].name.lower()] += 1
            continue
        if any(_is_alias(n) for n in nodes):
            continue
        counted += 1
    # A table removed and inserted again under another alias is an alias change (free);
    # one more or one fewer reference to a table both queries read is an ordinary edit.
    counted += sum(((removed_tables - inserted_tables) + (inserted_tables - removed_tables)).values())
    return SemanticSimilarity(1.0 - counted / len(edits), counted, len(edits), False)


def semantic_similarity(
    gold: str | exp.Expression,
    predicted: str | exp.Expression,
    *,
    dialect: str = "sqlite",
    target: str | None = None,
    budget: ScoringBudget | None = None,
) -> SemanticSimilarity:
    """Compare two queries (SQL text or trees parsed in `dialect`) by BIS 5.1 with the errata.

    Similarity is 1 - counted edits / all edits; 0 when the tables read differ, either query is invalid,
    or comparing them would break the scoring budget (`over_budget` says why).
    """
    budget = budget or ScoringBudget()
    deadline = budget.deadline()
    try:
        gold_query = comparable(gold, dialect, target, budget=budget, deadline=deadline)
        pred_query = comparable(predicted, dialect, target, budget=budget, deadline=deadline)
        if gold_query is None or pred_query is None:
            return SemanticSimilarity(0.0, 0, 0, False)
        return compare(gold_query, pred_query, budget=budget, deadline=deadline)
    except OverBudget as why:
        return SemanticSimilarity(0.0, 0, 0, False, over_budget=str(why))
