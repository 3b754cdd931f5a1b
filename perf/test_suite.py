"""Test-suite accuracy on bis-synth: suite build time and scoring speed at K = 1, 5, 20, and the share of
wrong-literal predictions the suite catches (those plain execution accuracy passes, and all of them).

The gold answers are scored (each question's gold SQL as the prediction): each pair runs the prediction and the
gold on the benchmark's database and on K neighbours, and the gold once more on each neighbour's twin.

Run: python perf/test_suite.py [--k 1,5,20] [--literal-k 10]
"""

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from biarena.benchmarks import resolve_benchmark
from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.metrics.gold_perturbations import perturb_gold
from biarena.metrics.neighbour_suite import _domain, suite_for
from biarena.records import Answer, Benchmark, Question, SystemSpec
from biarena.scoring import get_scorer


def _answer(question: Question, sql: str) -> Answer:
    return Answer(question_id=question.id, system=SystemSpec(agent="perf"), final_sql=sql)


def _score_all(bench: Benchmark, pairs: list[tuple[Question, str]], scorer_name: str, **options: object) -> list:
    context = ScoringContext(bench, DatabasePool(bench))
    scorer = get_scorer(scorer_name, **options)
    values = []
    try:
        for question, sql in pairs:
            (score,) = scorer(question, _answer(question, sql), context)
            values.append(score)
            context.forget(question)
    finally:
        context.databases.close()
    return values


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="1,5,20", help="Suite sizes to time (comma-separated).")
    parser.add_argument("--literal-k", type=int, default=10, help="Suite size for the wrong-literal share.")
    args = parser.parse_args()
    bench = resolve_benchmark("bis-synth")
    gold = [(q, q.gold_sql[0]) for q in bench.questions if q.gold_sql]
    with tempfile.TemporaryDirectory(prefix="biarena-suites-") as scratch:
        pool = DatabasePool(bench)
        print(f"bis-synth: {len(gold)} gold answers, 2 databases")
        for k in [int(part) for part in args.k.split(",")]:
            root = Path(scratch) / f"k{k}"
            started = time.perf_counter()
            suite = suite_for(bench, pool, k, root=root)
            built = time.perf_counter() - started
            shutil.rmtree(root)
            suite_for(bench, pool, k)  # into the cache the scorer reads, so scoring is timed alone
            started = time.perf_counter()
            scores = _score_all(bench, gold, "test_suite_accuracy", k=k)
            seconds = time.perf_counter() - started
            passed = sum(1 for s in scores if s.value == 1.0)
            undetermined = sum(1 for s in scores if s.value is None)
            print(
                f"K={k:>2}: suite built in {built:6.2f} s ({suite.methods['ads']}); scoring {len(gold)} pairs in "
                f"{seconds:6.2f} s = {len(gold) / seconds:6.1f} pairs/s; "
                f"gold passes {passed}, undetermined {undetermined}"
            )
        domains = {name: _domain(Path(bench.database_location(name))) for name in bench.databases}
        wrong = []
        for question, sql in gold:
            made = perturb_gold(sql, "literal", domain=domains[question.database])
            if made:
                wrong.append((question, made))
        plain = _score_all(bench, wrong, "execution_accuracy")
        suite_scores = _score_all(bench, wrong, "test_suite_accuracy", k=args.literal_k)
        lucky = [i for i, s in enumerate(plain) if s.value == 1.0]
        caught = [i for i in lucky if suite_scores[i].value == 0.0]
        failed = sum(1 for s in suite_scores if s.value == 0.0)
        print(
            f"wrong-literal predictions: {len(wrong)}; plain EA passes {len(lucky)}; --suite {args.literal_k} "
            f"fails {len(caught)} of those {len(lucky)}, and {failed} of all {len(wrong)}"
        )


if __name__ == "__main__":
    main()
