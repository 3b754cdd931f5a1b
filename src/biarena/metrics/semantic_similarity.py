"""BIS SQL semantic similarity: an AST diff where keeps, moves and aliases are free and a changed table is fatal."""

from collections import Counter
from dataclasses import dataclass

import sqlglot
from sqlglot import diff, exp
from sqlglot.diff import Insert, Keep, Move, Remove, Update
from sqlglot.errors import SqlglotError

_ALIAS_NODES = (exp.Alias, exp.TableAlias)


@dataclass(frozen=True)
class SemanticSimilarity:
    """The similarity and the edit counts behind it."""

    value: float
    counted: int
    total: int
    table_changed: bool


def _parse_one(sql: str, dialect: str, target: str) -> exp.Expression | None:
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
        if len(statements) != 1:
            return None
        text = statements[0].sql(dialect=target)
        return sqlglot.parse_one(text, read=target)
    except SqlglotError:
        return None


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


def canonical_aliases(tree: exp.Expression) -> exp.Expression:
    """Rename CTEs and table aliases to names derived from position, so renaming them is no edit."""
    ctes: dict[str, str] = {}
    for index, cte in enumerate(tree.find_all(exp.CTE)):
        ctes.setdefault(cte.alias_or_name.lower(), f"cte_{index}")
    aliases: dict[str, str] = {}
    counts: Counter = Counter()
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

    return tree.transform(rename)


def semantic_similarity(
    gold: str, predicted: str, *, dialect: str = "sqlite", target: str | None = None
) -> SemanticSimilarity:
    """Compare two queries by BIS 5.1 with the errata.

    Similarity is 1 - counted edits / all edits; 0 when the tables read differ or either query is invalid.
    """
    target = target or dialect
    gold_tree = _parse_one(gold, dialect, target)
    pred_tree = _parse_one(predicted, dialect, target)
    if gold_tree is None or pred_tree is None:
        return SemanticSimilarity(0.0, 0, 0, False)
    gold_tree, pred_tree = canonical_aliases(gold_tree), canonical_aliases(pred_tree)
    edits = diff(gold_tree, pred_tree, delta_only=False)
    if not edits:
        return SemanticSimilarity(1.0, 0, 0, False)
    ctes = _cte_names(gold_tree, pred_tree)
    gold_tables, pred_tables = _table_names(gold_tree, ctes), _table_names(pred_tree, ctes)
    if set(gold_tables) != set(pred_tables):
        # The queries read different tables: BIS's "changed table" rule.
        return SemanticSimilarity(0.0, len(edits), len(edits), True)
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
