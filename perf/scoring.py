"""Scoring speed: every bis-synth question against perturbed predictions, items per second per metric.

Then semantic similarity alone on the near-miss pairs (aliased, other aggregate, other literal, dropped
column), in pairs per second of this process's CPU time, so other work on the machine does not skew it.

Run: python perf/scoring.py
"""

import time
from collections.abc import Callable

import sqlglot
from sqlglot import exp

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.records import Answer, Question, SystemSpec
from biarena.scoring import SCORERS, default_scorers


def _swap_aggregate(tree: exp.Expression) -> exp.Expression:
    swap = {exp.Sum: exp.Avg, exp.Avg: exp.Sum, exp.Max: exp.Min, exp.Min: exp.Max}
    return tree.transform(lambda n: swap[type(n)](this=n.this) if type(n) in swap else n)


def _change_literal(tree: exp.Expression) -> exp.Expression:
    def change(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return exp.Literal.number(int(node.this) + 1)
        return node

    return tree.transform(change)


def _drop_first_column(tree: exp.Expression) -> exp.Expression:
    if isinstance(tree, exp.Select) and len(tree.expressions) > 1:
        tree.set("expressions", tree.expressions[1:])
    return tree


def _alias_outputs(tree: exp.Expression) -> exp.Expression:
    if isinstance(tree, exp.Select):
        tree.set("expressions", [exp.alias_(e.unalias(), f"col_{i}") for i, e in enumerate(tree.expressions)])
    return tree


NEAR_MISS = ("aliased", "aggregate", "literal", "dropped column")
"""Perturbations that keep the query's tables: the tree diff decides their score."""

PERTURBATIONS: dict[str, Callable[[str], str]] = {
    "identical": lambda sql: sql,
    "aliased": lambda sql: _alias_outputs(sqlglot.parse_one(sql, read="sqlite")).sql("sqlite"),
    "aggregate": lambda sql: _swap_aggregate(sqlglot.parse_one(sql, read="sqlite")).sql("sqlite"),
    "literal": lambda sql: _change_literal(sqlglot.parse_one(sql, read="sqlite")).sql("sqlite"),
    "dropped column": lambda sql: _drop_first_column(sqlglot.parse_one(sql, read="sqlite")).sql("sqlite"),
    "broken": lambda sql: sql.replace("SELECT", "SELEC", 1),
}


def main() -> None:
    """Score every question's perturbed predictions with each metric and print the rates."""
    benchmark = resolve_benchmark("bis-synth")
    items: list[tuple[Question, Answer]] = []
    for question in benchmark.questions:
        for name, perturb in PERTURBATIONS.items():
            sql = perturb(question.gold_sql[0])
            items.append((question, Answer(question_id=question.id, system=SystemSpec(agent=name), final_sql=sql)))
    print(f"{len(benchmark.questions)} questions x {len(PERTURBATIONS)} perturbations = {len(items)} items")
    print(f"{'metric':22s} {'items/s':>10s} {'seconds':>9s} {'mean':>7s}")
    for name in default_scorers():
        scorer = SCORERS[name]()
        pool = DatabasePool(benchmark)
        context = ScoringContext(benchmark=benchmark, databases=pool)  # fresh: each metric runs its own SQL
        started = time.perf_counter()
        values = []
        for question, answer in items:
            values += [s.value for s in scorer(question, answer, context) if s.value is not None]
        seconds = time.perf_counter() - started
        pool.close()
        mean = sum(values) / len(values) if values else float("nan")
        print(f"{name:22s} {len(items) / seconds:10.1f} {seconds:9.2f} {mean:7.3f}")
    near = [(q, a) for q, a in items if a.system.agent in NEAR_MISS]
    scorer = SCORERS["semantic_similarity"]()
    best = float("inf")
    for _ in range(3):
        pool = DatabasePool(benchmark)
        context = ScoringContext(benchmark=benchmark, databases=pool)
        started = time.process_time()
        total = sum(scorer(question, answer, context)[0].value or 0.0 for question, answer in near)
        best = min(best, time.process_time() - started)
        pool.close()
    print(
        f"semantic similarity, near-miss pairs: {len(near)} pairs, {len(near) / best:.1f} pairs/s "
        f"(CPU, fastest of 3), mean {total / len(near):.3f}"
    )


if __name__ == "__main__":
    main()
