"""ScoringContext: what a scorer may use, with each statement's result computed once."""

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from biarena.db import DatabasePool, PreparedStatement, QueryResult, SqlProblem
from biarena.records import Answer, Benchmark, Question
from biarena.scoring.budget import ScoringBudget
from biarena.scoring.gold_results import gold_tables
from biarena.scoring.kept_results import ResultKeeper, decode_outcome, encode_outcome
from biarena.scoring.tolerance import Tolerance

Outcome = QueryResult | SqlProblem
"""A statement's rows, or why it failed."""


@dataclass
class ScoringContext:
    """The benchmark, its databases and the comparison settings, shared by every scorer in a pass."""

    benchmark: Benchmark
    databases: DatabasePool
    tolerance: Tolerance = field(default_factory=Tolerance)
    budget: ScoringBudget = field(default_factory=ScoringBudget)
    kept: ResultKeeper | None = None
    """Where statement results are kept (the run file): found there, a statement is not run again."""
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """Held by whatever runs statements or fills the caches while scorers run on several threads."""
    _results: dict[tuple[str, str, str], Outcome] = field(default_factory=dict, repr=False)
    _statements: dict[tuple[str, str, str], PreparedStatement | SqlProblem] = field(default_factory=dict, repr=False)
    _per_result: dict[tuple[int, str], tuple[QueryResult, Any]] = field(default_factory=dict, repr=False)
    _memo: dict[tuple, Any] = field(default_factory=dict, repr=False)

    def per_result(self, result: QueryResult, key: str, make: Callable[[], Any]) -> Any:
        """`make()` computed once per result and `key`, for every scorer that needs it (e.g. the result split into
        typed columns); dropped with the result when its question is forgotten."""
        entry = self._per_result.get((id(result), key))
        if entry is None or entry[0] is not result:
            entry = (result, make())
            self._per_result[(id(result), key)] = entry
        return entry[1]

    def statement(self, question: Question, sql: str, *, gold: bool = False) -> PreparedStatement | SqlProblem:
        """`sql` checked and prepared for the question's engine (clock anchored, transpiled), or why it is refused."""
        key = (question.database, "gold" if gold else "answer", sql)
        if key not in self._statements:
            db = self.databases.get(question.database)
            dialect = self.databases.source_dialect(question.database) if gold else db.dialect
            try:
                self._statements[key] = db.prepare_statement(sql, dialect, self.benchmark.anchor_for(question))
            except SqlProblem as problem:
                self._statements[key] = problem
        return self._statements[key]

    def run(self, question: Question, sql: str, *, gold: bool = False) -> Outcome:
        """Run `sql` on the question's database with its clock anchor; cached per statement."""
        key = (question.database, "gold" if gold else "answer", sql)
        if key not in self._results and self.kept is not None:
            body = self.kept.kept_result(self._kept_name(question.database), key[1], sql)
            if body is not None:
                with contextlib.suppress(ValueError, KeyError, TypeError, IndexError, RecursionError):
                    # a kept result of another shape than this biarena writes is run again, like one not kept
                    self._results[key] = decode_outcome(body)
        if key not in self._results:
            statement = self.statement(question, sql, gold=gold)
            if isinstance(statement, SqlProblem):
                self._results[key] = statement
            else:
                try:
                    db = self.databases.get(question.database)
                    self._results[key] = db.execute(statement.text, prepared=statement)
                except SqlProblem as problem:
                    self._results[key] = problem
            # a timeout may not recur under other limits: it is run again next time
            if self.kept is not None and getattr(self._results[key], "kind", None) != "timeout":
                self.kept.keep_result(
                    self._kept_name(question.database), key[1], sql, encode_outcome(self._results[key])
                )
        return self._results[key]

    def _kept_name(self, database: str) -> str:
        """A database as kept results name it: its name and where it is read from (another location, other rows)."""
        try:
            return f"{database}@{self.databases.location(database)}"
        except Exception:  # a database the benchmark no longer names: its results are found by name alone
            return database

    def engine_dialect(self, database: str) -> str:
        """The dialect the database's engine runs (the benchmark's own when the database cannot be opened)."""
        try:
            return self.databases.get(database).dialect
        except Exception:  # results kept in the run file are scored without the database
            return self.databases.source_dialect(database)

    def prepared(self, question: Question, sql: str, *, gold: bool = False) -> str | None:
        """`sql` as the engine runs it (clock anchored, transpiled), or None when the sandbox refuses it."""
        statement = self.statement(question, sql, gold=gold)
        return None if isinstance(statement, SqlProblem) else statement.text

    def memo(self, question: Question, key: tuple, make: Callable[[], Any]) -> Any:
        """`make()` computed once per question and key (kept until the question is forgotten)."""
        full = (question.database, question.id, *key)
        if full not in self._memo:
            self._memo[full] = make()
        return self._memo[full]

    def gold(self, question: Question) -> list[tuple[str, Outcome]]:
        """Each gold query of the question with its outcome; a question given gold tables has those instead."""
        if question.gold_results:
            return gold_tables(question)
        return [(sql, self.run(question, sql, gold=True)) for sql in question.gold_sql]

    def answer_result(self, question: Question, answer: Answer) -> Outcome | None:
        """The outcome of the answer's final SQL, or None when it offers none."""
        if not answer.final_sql:
            return None
        return self.run(question, answer.final_sql)

    def forget(self, question: Question) -> None:
        """Drop cached results and trees of a question's statements (to bound memory on large runs)."""
        # list() copies the keys at once: a scorer on another thread may be adding some meanwhile
        for key in [k for k in list(self._results) if k[0] == question.database and k[1] == "answer"]:
            outcome = self._results.pop(key, None)
            for made in [k for k in list(self._per_result) if k[0] == id(outcome)]:
                self._per_result.pop(made, None)
        for key in [k for k in list(self._statements) if k[0] == question.database and k[1] == "answer"]:
            self._statements.pop(key, None)
        for key in [k for k in list(self._memo) if k[0] == question.database and k[1] == question.id]:
            self._memo.pop(key, None)
