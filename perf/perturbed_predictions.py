"""A perturbed prediction set for bis-synth: each question's gold SQL with one fixed edit (a value rounded, DISTINCT
switched, columns swapped, a wrong filter value; the edit chosen by the question id, the next one that applies
when it does not), written as predictions JSONL for `biarena run bis-synth --agent predictions`.

Run:
  python perf/perturbed_predictions.py -o /tmp/perturbed.jsonl
  biarena run bis-synth --agent predictions -O predictions=/tmp/perturbed.jsonl -o /tmp/perturbed.run
  biarena score /tmp/perturbed.run --contract biarena,spider,spider-keep-distinct,bird,bird-f1,spider2,strict
  biarena show /tmp/perturbed.run
"""

import argparse
import json
import zlib
from collections import Counter
from pathlib import Path

from biarena.benchmarks import resolve_benchmark
from biarena.metrics.gold_perturbations import KINDS, perturb_gold
from biarena.metrics.neighbour_suite import _domain


def main() -> None:
    """Write the predictions and print how many of each edit."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True, help="Predictions JSONL to write.")
    parser.add_argument("--benchmark", default="bis-synth", help="Benchmark directory or built-in name.")
    args = parser.parse_args()
    bench = resolve_benchmark(args.benchmark)
    domains = {name: _domain(Path(bench.database_location(name))) for name in bench.databases}
    edits = KINDS[1:]
    made: Counter = Counter()
    with args.out.open("w", encoding="utf-8") as out:
        for question in bench.questions:
            if not question.gold_sql:
                continue
            gold = question.gold_sql[0]
            start = zlib.crc32(question.id.encode()) % len(edits)
            sql, kind = gold, "gold"
            for step in range(len(edits)):
                edit = edits[(start + step) % len(edits)]
                changed = perturb_gold(gold, edit, domain=domains[question.database])
                if changed:
                    sql, kind = changed, edit
                    break
            made[kind] += 1
            out.write(json.dumps({"question_id": question.id, "sql": sql, "edit": kind}, ensure_ascii=False) + "\n")
    print(f"wrote {sum(made.values())} predictions to {args.out}: " + ", ".join(f"{k} {n}" for k, n in made.items()))


if __name__ == "__main__":
    main()
