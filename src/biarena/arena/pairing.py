"""next_pair: which two systems and which question an annotator sees next, favouring the least-compared."""

import random
from dataclasses import dataclass
from itertools import combinations

from biarena.arena.catalog import Catalog


@dataclass(frozen=True)
class Pick:
    """A question and two systems, sides already drawn."""

    benchmark: str
    question_id: str
    left: str
    right: str


def next_pair(
    catalog: Catalog,
    voted: set[tuple[str, str, str, str]],
    pair_counts: dict[tuple[str, str], int],
    question_counts: dict[tuple[str, str, str, str], int],
    rng: random.Random,
) -> Pick | None:
    """The least-compared pair of systems that still has a question this annotator has not judged for it.

    Among that pair's questions the least-voted one wins; ties are drawn at random, and so are the sides, so
    neither position nor order says which system is which. None when the annotator has judged everything.
    """
    systems = catalog.systems
    by_benchmark: dict[str, list[str]] = {}
    for name in sorted(systems):
        by_benchmark.setdefault(catalog.benchmark_of(name), []).append(name)
    pairs = [(b, lo, hi) for b, names in by_benchmark.items() for lo, hi in combinations(names, 2)]
    rng.shuffle(pairs)
    pairs.sort(key=lambda p: pair_counts.get((p[1], p[2]), 0))
    for benchmark, low, high in pairs:
        first, second = systems[low].answers, systems[high].answers
        open_questions = [
            qid
            for qid in first
            if qid in second
            and (benchmark, qid) in catalog.questions
            and (benchmark, qid, low, high) not in voted
        ]
        if not open_questions:
            continue
        rng.shuffle(open_questions)
        question = min(open_questions, key=lambda q: question_counts.get((benchmark, q, low, high), 0))
        left, right = (low, high) if rng.random() < 0.5 else (high, low)
        return Pick(benchmark, question, left, right)
    return None
