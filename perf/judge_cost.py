"""Model calls and tokens per answer of every registered judge, on a fixed set of answers, and the cost of a re-score.

The judge model is the mock, replying valid JSON for every schema it is given, so the figures count what each judge
asks, not how a real model answers. Targets: `corgi` at most 8 calls per answer; a re-score makes 0 calls.
Run: python perf/judge_cost.py [--answers N]
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import make_sales_db
from tests.judge_run_helpers import corgi_bench, mock_model, valid_reply, write_run

from biarena.db import DatabasePool
from biarena.metrics import ScoringContext
from biarena.runner import RunStore
from biarena.scoring import SCORERS, default_scorers, score_run, setup_scorers


def measure(name: str, root: Path, answers: int) -> tuple[int, int, int, int, int, int] | str:
    """(answers judged, failed, calls, tokens, re-score calls, re-score cache hits) of one judge, or why it could not
    be measured."""
    bench = corgi_bench(root, make_sales_db(root / "sales.sqlite"), answers)
    run = write_run(root / f"{name}.run", bench)
    cache = root / "cache"
    try:
        with RunStore(run, lock=True) as store:
            context = ScoringContext(benchmark=bench, databases=DatabasePool(bench))
            setups = setup_scorers([name], context, model=mock_model([valid_reply()], cache))
            first = score_run(store, setups)
            setups = setup_scorers([name], context, model=mock_model([valid_reply()], cache))
            again = score_run(store, setups, rescore=True)
    except Exception as error:  # a judge still being written must not hide the others' figures
        return f"{type(error).__name__}: {error}"
    tokens = first.usage.prompt_tokens + first.usage.completion_tokens
    return first.scored_now, first.failed, first.usage.calls, tokens, again.usage.calls, again.usage.cache_hits


def main() -> None:
    """Measure each registered judge and print one line per judge."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=16, help="answers in the fixed set (CORGI types 1-4 in turn)")
    options = parser.parse_args()
    os.environ["BIARENA_HOME"] = tempfile.mkdtemp(prefix="biarena-judge-cost-")
    print(f"{options.answers} answers (CORGI types 1-4 in turn); mock judge model replying valid JSON")
    header = ("judge", "judged", "failed", "calls/answer", "tokens/answer", "re-score calls")
    print(f"{header[0]:<14} {header[1]:>6} {header[2]:>6} {header[3]:>12} {header[4]:>13} {header[5]:>14}")
    for name in [n for n in SCORERS if n not in default_scorers()]:
        with tempfile.TemporaryDirectory() as work:
            result = measure(name, Path(work), options.answers)
        if isinstance(result, str):
            print(f"{name:<14} not measured: {result.splitlines()[0][:120]}")
            continue
        judged, failed, calls, tokens, recalls, hits = result
        per_calls = calls / judged if judged else 0.0
        per_tokens = tokens / judged if judged else 0.0
        print(
            f"{name:<14} {judged:>6} {failed:>6} {per_calls:>12.2f} {per_tokens:>13.0f} {recalls:>14}"
            + (f"  ({hits} replies from the cache)" if hits else "")
        )


if __name__ == "__main__":
    main()
