"""Fresh-seed stability: bis-synth built at 5 seeds (`biarena build bis-synth -O seed=N`), a fixed system scored on
each: the gold SQL, and the gold with one fixed edit (a value rounded, DISTINCT switched, columns swapped, a wrong
literal; the gold itself where the edit does not apply). Prints each score's mean and standard deviation across
seeds, per system.

Run: python perf/seed_stability.py [--seeds 0,1,2,3,4]
"""

import argparse
import statistics
import tempfile
from pathlib import Path

from biarena.benchmarks import load_benchmark
from biarena.benchmarks.builtin import build_builtin
from biarena.db import DatabasePool
from biarena.generate.builtins import BisSynthOptions
from biarena.metrics import ScoringContext
from biarena.metrics.gold_perturbations import KINDS, perturb_gold
from biarena.metrics.neighbour_suite import _domain
from biarena.records import Answer, SystemSpec
from biarena.scoring import default_scorers, get_scorer
from biarena.scoring.contract_names import CONTRACTS

SCORES = (
    *(f"execution_accuracy[{name}]" if name != "biarena" else "execution_accuracy" for name in CONTRACTS),
    "result_f1",
    "semantic_similarity",
)


def _means(directory: Path, seed: int) -> dict[tuple[str, str], float]:
    """(system, score) -> mean over the questions of bis-synth built at `seed`."""
    build_builtin("bis-synth", directory, BisSynthOptions(seed=seed))
    bench = load_benchmark(directory)
    context = ScoringContext(bench, DatabasePool(bench))
    scorers = [get_scorer(n) for n in default_scorers()]
    scorers += [get_scorer(f"execution_accuracy[{n}]") for n in CONTRACTS if n != "biarena"]
    domains = {name: _domain(Path(bench.database_location(name))) for name in bench.databases}
    totals: dict[tuple[str, str], list[float]] = {}
    for question in bench.questions:
        if not question.gold_sql:
            continue
        for kind in KINDS:
            gold = question.gold_sql[0]
            sql = perturb_gold(gold, kind, domain=domains[question.database]) or gold
            answer = Answer(question_id=question.id, system=SystemSpec(agent=kind), final_sql=sql)
            for scorer in scorers:
                for score in scorer(question, answer, context):
                    if score.name in SCORES and score.value is not None:
                        totals.setdefault((kind, score.name), []).append(score.value)
            context.forget(question)
    context.databases.close()
    return {key: sum(values) / len(values) for key, values in totals.items()}


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3,4", help="Seeds to build bis-synth at (comma-separated).")
    args = parser.parse_args()
    seeds = [int(part) for part in args.seeds.split(",")]
    runs = []
    with tempfile.TemporaryDirectory(prefix="biarena-seeds-") as scratch:
        for seed in seeds:
            runs.append(_means(Path(scratch) / f"seed{seed}", seed))
            print(f"seed {seed}: built and scored", flush=True)
    width = max(len(s) for s in SCORES)
    print(f"\nbis-synth at seeds {args.seeds}: mean ± sd across seeds (per-seed means in brackets)")
    for kind in KINDS:
        print(f"\nsystem: {kind if kind == 'gold' else 'gold with ' + kind + ' edit'}")
        for name in SCORES:
            values = [run[(kind, name)] for run in runs if (kind, name) in run]
            if not values:
                continue
            sd = statistics.stdev(values) if len(values) > 1 else 0.0
            shown = ", ".join(f"{v:.3f}" for v in values)
            print(f"  {name:<{width}}  {statistics.mean(values):.3f} ± {sd:.3f}  [{shown}]")


if __name__ == "__main__":
    main()
