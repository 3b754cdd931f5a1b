"""Good-vs-worse answer pairs for `judge check` from an imported InsightBench, whose order is known without a model.

The good answer states the question's ground-truth finding in the authors' other words (the prose under its plot,
else the insight and its action) with its values; each worse copy is one of:

- `other_finding`: the same kind of text for another insight of the same flag (same data and vocabulary, another
  finding);
- `wrong_figures`: the good answer with every figure moved by 30-50% (`biarena.judges.degrade.numbers_changed`);
- `other_flag`: the same kind of text for an insight of another flag of the same domain.
"""

import random
from typing import Any

from biarena.judges.degrade import numbers_changed
from biarena.records import Answer, Question, SystemSpec

KINDS = ("other_finding", "wrong_figures", "other_flag")
"""The worse copies, in the order they are made."""
PER_QUESTION = 2


def is_insightbench(questions: list[Question]) -> bool:
    """True when the questions are an imported InsightBench's."""
    return any((q.evidence or {}).get("kind") == "insightbench-insight" for q in questions)


def _values(value: Any) -> str:
    if isinstance(value, dict) and value:
        return "; ".join(f"{k}: {v}" for k, v in value.items() if not isinstance(v, dict | list))
    return ""


def finding_text(question: Question) -> str:
    """How the good answer states a question's finding: the plot's prose (else the insight and its action), then
    its scalar values."""
    evidence = question.evidence or {}
    insight = str(evidence.get("insight") or "").strip()
    action = str(evidence.get("actionable_insight") or "").strip()
    body = str(evidence.get("plot_description") or "").strip() or " ".join(t for t in (insight, action) if t)
    values = _values(evidence.get("insight_value"))
    return f"{body}\n\nKey figures: {values}." if values else body


def _answer(question: Question, text: str) -> Answer:
    return Answer(question_id=question.id, system=SystemSpec(agent="judge-check"), text=text)


def insightbench_pairs(questions: list[Question], applies: Any, count: int, seed: int) -> list[Any]:
    """`count` pairs over the insight questions (shuffled by `seed`) that `applies` accepts, each good answer with
    up to two kinds of worse copy, spreading the pairs over the kinds."""
    from biarena.judges.check_pairs import Pair

    pool = [
        q
        for q in questions
        if (q.evidence or {}).get("kind") == "insightbench-insight"
        and str((q.evidence or {}).get("insight") or "").strip()
        and applies(q)
    ]
    rng = random.Random(seed)
    rng.shuffle(pool)
    by_flag: dict[str, list[Question]] = {}
    by_domain: dict[str, list[Question]] = {}
    for q in pool:
        by_flag.setdefault(q.database, []).append(q)
        by_domain.setdefault(q.domain or "", []).append(q)
    made = dict.fromkeys(KINDS, 0)
    pairs: list[Pair] = []
    for question in pool:
        if len(pairs) >= count:
            break
        good = finding_text(question)
        local = random.Random(f"{seed}/{question.id}")
        copies: list[tuple[str, str]] = []
        for kind in sorted(KINDS, key=lambda k: (made[k], KINDS.index(k))):
            if kind == "wrong_figures":
                worse = numbers_changed(good, local)
            else:
                others = by_flag[question.database] if kind == "other_finding" else by_domain[question.domain or ""]
                others = [
                    o
                    for o in others
                    if o.id != question.id and (kind == "other_finding" or o.database != question.database)
                ]
                others = [o for o in others if finding_text(o).strip() != good.strip()]
                worse = finding_text(local.choice(others)) if others else None
            if worse:
                copies.append((kind, worse))
            if len(copies) == min(PER_QUESTION, count - len(pairs)):
                break
        for kind, text in copies:
            made[kind] += 1
            pairs.append(Pair(question, kind, _answer(question, good), _answer(question, text)))
    return pairs
