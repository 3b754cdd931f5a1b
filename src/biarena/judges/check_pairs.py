"""The pairs a judge check judges: a good answer to a question with a simulator-known truth, written as an analyst
would (`biarena.judges.analyst`), and degraded copies of it (`biarena.judges.degrade`) whose order is known without a
model."""

import random
from dataclasses import dataclass

from biarena.agents import AgentEnv
from biarena.errors import UsageError
from biarena.judges.analyst import draft_answer, gather, reference_parts
from biarena.judges.base import JudgeScorer
from biarena.judges.degrade import DEGRADATIONS, cause_of, degrade, other_cause
from biarena.judges.insight_truth import target_words
from biarena.records import Answer, Question, Step, SystemSpec

TYPES = ("corgi:type2", "corgi:type3", "corgi:type4")
"""Question types whose references carry a simulator-known truth."""
PER_QUESTION = 2
"""Degraded copies made of each good answer (so each pair stays informative and good answers are reused)."""


@dataclass(frozen=True)
class Pair:
    """A good answer and one degraded copy of it, to one question."""

    question: Question
    degradation: str
    good: Answer
    degraded: Answer


def corgi_type_label(question: Question) -> str:
    """The corgi type label of a question (an InsightBench question's insight type)."""
    found = next((label for label in question.labels if label in TYPES), None)
    return found or next((label for label in question.labels if label.startswith("insightbench:")), "other")


def candidates(questions: list[Question], judge: JudgeScorer) -> list[Question]:
    """Questions with a simulator-known truth that the judge applies to."""
    return [
        q
        for q in questions
        if q.reference_answer
        and corgi_type_label(q) != "other"
        and reference_parts(q.reference_answer)[0]
        and judge.applies(q)
    ]


def _answer(question: Question, text: str, plan: str, steps: list[Step]) -> Answer:
    return Answer(
        question_id=question.id,
        system=SystemSpec(agent="judge-check"),
        plan=plan,
        steps=steps,
        final_sql=steps[-1].sql if steps else None,
        text=text,
    )


def build_pairs(questions: list[Question], judge: JudgeScorer, env: AgentEnv, count: int, seed: int) -> list[Pair]:
    """`count` pairs over the question types in turn, each good answer with up to two kinds of degraded copy,
    spreading the pairs evenly over the degradations."""
    pool = candidates(questions, judge)
    if not pool:
        raise UsageError(
            "no question with a simulator-known truth that this judge applies to (corgi-synth types 2-4 have them)"
        )
    rng = random.Random(seed)
    by_type: dict[str, list[Question]] = {}
    for q in pool:
        by_type.setdefault(corgi_type_label(q), []).append(q)
    for items in by_type.values():
        rng.shuffle(items)
    order: list[Question] = []
    while any(by_type.values()):
        for kind in TYPES:
            if by_type.get(kind):
                order.append(by_type[kind].pop())
    causes: dict[str, list[str]] = {}
    for q in pool:
        cause = cause_of(reference_parts(q.reference_answer or "")[0])
        if cause:
            causes.setdefault(q.database, []).append(cause)
    made: dict[str, int] = dict.fromkeys(DEGRADATIONS, 0)
    pairs: list[Pair] = []
    for question in order:
        if len(pairs) >= count:
            break
        evidence = gather(question, env)
        if evidence is None:
            continue
        claim = reference_parts(question.reference_answer or "")[0]
        other = other_cause(claim, causes.get(question.database, []), random.Random(f"{seed}/{question.id}/cause"))
        target = target_words(question) if corgi_type_label(question) == "corgi:type4" else None
        draft = draft_answer(question, evidence, cause=cause_of(claim), other_cause=other, target=target)
        copies: list[tuple[str, str, list[Step]]] = []
        for name in sorted(DEGRADATIONS, key=lambda d: (made[d], DEGRADATIONS.index(d))):
            worse = degrade(
                name,
                draft,
                evidence,
                random.Random(f"{seed}/{question.id}/{name}"),
                recommendational=corgi_type_label(question) == "corgi:type4",
                wrong=lambda q=question: gather(q, env, year=True),
                target=target,
            )
            if worse is not None:
                copies.append((name, *worse))
            if len(copies) == min(PER_QUESTION, count - len(pairs)):
                break
        if not copies:
            continue
        good = _answer(question, draft.text, draft.plan, evidence.steps)
        for name, text, steps in copies:
            made[name] += 1
            pairs.append(Pair(question, name, good, _answer(question, text, draft.plan, steps)))
    return pairs
