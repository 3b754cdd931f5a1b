"""ScoringContext: what a scorer may use, with each statement's result computed once."""

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from biarena.db import DatabasePool, QueryResult, SqlProblem
from biarena.metrics.columns import Column, Tolerance
from biarena.metrics.result_similarity import to_columns
from biarena.records import Answer, Benchmark, Question

Outcome = QueryResult | SqlProblem
"""A statement's rows, or why it failed."""


@dataclass
class ScoringContext:
    """The benchmark, its databases and the comparison settings, shared by every scorer in a pass."""

    benchmark: Benchmark
    databases: DatabasePool
    tolerance: Tolerance = field(default_factory=Tolerance)
    _results: dict[tuple[str, str, str], Outcome] = field(default_factory=dict, repr=False)
    _prepared: dict[tuple[str, str, str, str], str | None] = field(default_factory=dict, repr=False)
    _columns: dict[int, tuple[QueryResult, list[Column]]] = field(default_factory=dict, repr=False)

    def columns(self, result: QueryResult) -> list[Column]:
        """The result split into typed columns, once for all the scorers that compare it."""
        entry = self._columns.get(id(result))
        if entry is None or entry[0] is not result:
            entry = (result, to_columns(result))
            self._columns[id(result)] = entry
        return entry[1]

    def run(self, question: Question, sql: str, *, gold: bool = False) -> Outcome:
        """Run `sql` on the question's database with its clock anchor; cached per statement."""
        key = (question.database, "gold" if gold else "answer", sql)
        if key not in self._results:
            db = self.databases.get(question.database)
            dialect = self.databases.source_dialect(question.database) if gold else db.dialect
            try:
                self._results[key] = db.execute(sql, dialect=dialect, now=self.benchmark.anchor_for(question))
            except SqlProblem as problem:
                self._results[key] = problem
        return self._results[key]

    def prepared(self, question: Question, sql: str, *, gold: bool = False) -> str | None:
        """`sql` as the engine runs it (clock anchored, transpiled), or None when the sandbox refuses it."""
        key = (question.database, "gold" if gold else "answer", sql, str(self.benchmark.anchor_for(question)))
        if key not in self._prepared:
            db = self.databases.get(question.database)
            dialect = self.databases.source_dialect(question.database) if gold else db.dialect
            try:
                self._prepared[key] = db.prepare(sql, dialect, self.benchmark.anchor_for(question))
            except SqlProblem:
                self._prepared[key] = None
        return self._prepared[key]

    def gold(self, question: Question) -> list[tuple[str, Outcome]]:
        """Each gold query of the question with its outcome."""
        return [(sql, self.run(question, sql, gold=True)) for sql in question.gold_sql]

    def answer_result(self, question: Question, answer: Answer) -> Outcome | None:
        """The outcome of the answer's final SQL, or None when it offers none."""
        if not answer.final_sql:
            return None
        return self.run(question, answer.final_sql)

    def forget(self, question: Question) -> None:
        """Drop cached results of a question's statements (to bound memory on large runs)."""
        for key in [k for k in self._results if k[0] == question.database and k[1] == "answer"]:
            outcome = self._results.pop(key)
            self._columns.pop(id(outcome), None)


def orders_rows(sql: str, dialect: str = "sqlite") -> bool:
    """True when the query's outermost statement has an ORDER BY, so row order is part of the answer."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return False
    return tree is not None and tree.args.get("order") is not None and isinstance(tree, exp.Query)
