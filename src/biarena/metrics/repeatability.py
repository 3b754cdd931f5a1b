"""repeatability: how a run of several tries a question (`run --repeats K`) agrees with itself, and its pass@k and
pass^k of execution accuracy with bootstrap intervals over questions."""

import contextlib
import json
from dataclasses import dataclass
from math import comb

from biarena.db import QueryResult, SqlProblem
from biarena.metrics.execution_match import results_match
from biarena.records import Answer, Score
from biarena.runner.store import RunStore
from biarena.scoring.kept_results import decode_outcome
from biarena.stats.bootstrap import Interval, mean_interval

ACCURACY = "execution_accuracy"
"""The score pass@k and pass^k count: a try is correct when its execution accuracy is 1."""

_NO_RESULT = "no result"


@dataclass(frozen=True)
class QuestionRepeats:
    """One question's tries: how many, how many correct, and whether their results agree."""

    question_id: str
    tries: int
    """Tries recorded for the question."""
    correct: int | None
    """Tries whose execution accuracy is 1 (None when its gold could not be run, or a try is not scored yet)."""
    agree: bool | None
    """Every try's final SQL gives the same result (a bag of rows, columns in any order; an answer without a result
    agrees only with another one without); None when a result is not known (scored runs keep them all)."""
    distinct: int | None
    """How many different results the tries give (None when a result is not known)."""


@dataclass(frozen=True)
class PassAtK:
    """pass@k (at least one of k tries correct) and pass^k (all k correct), each a mean over questions."""

    k: int
    at_least_one: Interval
    all_of: Interval


@dataclass(frozen=True)
class Repeatability:
    """A run's repeatability: per question, the share of questions whose tries agree, and pass@k / pass^k."""

    repeats: int
    """Tries a question the run asks for."""
    questions: list[QuestionRepeats]
    agreement: Interval | None
    """Share of questions whose tries agree (of those whose results are known), with its 95% bootstrap interval."""
    passes: list[PassAtK]
    """For k = 1 .. the fewest tries of a scored question (empty for an unscored run)."""

    @property
    def all_agree(self) -> bool:
        """Every question's tries agree."""
        return bool(self.questions) and all(q.agree for q in self.questions)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from n tries of which c are correct: 1 − C(n−c, k) / C(n, k)."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_all_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k (all k tries correct) from n tries of which c are correct: C(c, k) / C(n, k)."""
    return comb(c, k) / comb(n, k)


def repeatability(store: RunStore, *, seed: int = 0) -> Repeatability | None:
    """The repeatability of the run in `store`; None for a run of one try."""
    tries = store.tries()
    repeats = max(store.repeats(), len(tries))
    if repeats < 2 or len(tries) < 2:
        return None
    by_question: dict[str, list[tuple[int, Answer]]] = {}
    for number, answer in store.answers_of_tries():
        by_question.setdefault(answer.question_id, []).append((number, answer))
    kept = _kept_answer_results(store)
    accuracy = {number: _accuracy(scores) for number, scores in store.scores_of_tries().items()}
    scored = any(accuracy.values())
    questions = []
    for qid, numbered in by_question.items():
        answers = [answer for _, answer in numbered]
        correct = None
        if scored:
            # an answer recorded as an error is wrong; one not scored yet (a try added since) leaves the question out
            values = [
                accuracy.get(number, {}).get(qid, 0.0 if answer.status == "error" else None)
                for number, answer in numbered
            ]
            correct = None if any(v is None for v in values) else sum(v == 1.0 for v in values)
        distinct = _distinct([_result(answer, kept) for answer in answers], [a.final_sql for a in answers])
        agree = None if distinct is None else distinct == 1
        questions.append(QuestionRepeats(qid, len(answers), correct, agree, distinct))
    known = [q.agree for q in questions if q.agree is not None]
    agreement = mean_interval([float(a) for a in known], seed=seed) if known else None
    counted = [q for q in questions if q.correct is not None and q.tries > 0]
    passes = []
    for k in range(1, min((q.tries for q in counted), default=0) + 1):
        at_least = mean_interval([pass_at_k(q.tries, q.correct or 0, k) for q in counted], seed=seed)
        every = mean_interval([pass_all_k(q.tries, q.correct or 0, k) for q in counted], seed=seed)
        passes.append(PassAtK(k, at_least, every))
    return Repeatability(repeats, questions, agreement, passes)


def _accuracy(scores: list[Score]) -> dict[str, float | None]:
    return {s.question_id: s.value for s in scores if s.name == ACCURACY}


def _kept_answer_results(store: RunStore) -> dict[tuple[str, str], str]:
    """Kept results of answers' statements by (database name, SQL)."""
    return {
        (database.partition("@")[0], sql): body
        for database, role, sql, body in store.kept_results()
        if role == "answer"
    }


def _result(answer: Answer, kept: dict[tuple[str, str], str]) -> QueryResult | str | None:
    """The answer's final result: kept by scoring, else its final step's preview when that holds every row;
    `_NO_RESULT` when it has none; None when it is not known."""
    sql = answer.final_sql
    if answer.status == "error" or not sql:
        return _NO_RESULT
    for (_, kept_sql), body in kept.items():
        if kept_sql == sql:
            with contextlib.suppress(ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError):
                outcome = decode_outcome(body)
                return _NO_RESULT if isinstance(outcome, SqlProblem) else outcome
    step = next((s for s in reversed(answer.steps) if s.sql == sql), None)
    if step is None:
        return None
    if step.error:
        return _NO_RESULT
    if not step.truncated and step.row_count == len(step.preview):
        return QueryResult(columns=list(step.columns), rows=[tuple(row) for row in step.preview])
    return None


def _distinct(results: list[QueryResult | str | None], sqls: list[str | None]) -> int | None:
    """How many different results; two unknown results of the same SQL are the same."""
    groups: list[tuple[QueryResult | str | None, str | None]] = []
    for result, sql in zip(results, sqls, strict=True):
        for other, other_sql in groups:
            if sql == other_sql or _same(result, other):
                break
            if result is None or other is None:
                return None
        else:
            groups.append((result, sql))
    return len(groups)


def _same(a: QueryResult | str | None, b: QueryResult | str | None) -> bool:
    if isinstance(a, QueryResult) and isinstance(b, QueryResult):
        return results_match(a, b, ordered=False)
    return a is not None and a == b
