"""Bradley-Terry interval coverage: CORGI Appendix E's simulation over many seeds.

Prints the share of true strengths the 95% bootstrap intervals cover (nominal 95%, with its own binomial interval),
the mean and lowest Spearman's rho between the true and fitted order, and the share of seeds with rho >= 0.9.

    python perf/bt_coverage.py [--seeds 100] [--systems 10] [--comparisons 2000] [--bootstrap 500]
"""

import argparse

import numpy as np
from scipy import stats

from biarena.stats.simulation import simulate_votes


def main() -> None:
    """Run the simulation over seeds and print coverage and Spearman figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--comparisons", type=int, default=2000)
    parser.add_argument("--bootstrap", type=int, default=500)
    args = parser.parse_args()
    covered = total = 0
    rhos = []
    for seed in range(args.seeds):
        sim = simulate_votes(args.systems, args.comparisons, seed=seed, bootstrap=args.bootstrap)
        covered += sim.covered
        total += args.systems
        rhos.append(sim.spearman)
    rate = stats.binomtest(covered, total).proportion_ci(confidence_level=0.95)
    rho = np.array(rhos)
    print(
        f"{args.seeds} seeds x {args.systems} systems, {args.comparisons} votes each, "
        f"{args.bootstrap} bootstrap resamples"
    )
    print(
        f"interval coverage: {covered}/{total} = {covered / total:.1%} "
        f"(95% CI {rate.low:.1%}-{rate.high:.1%}; nominal 95%)"
    )
    print(
        f"Spearman's rho: mean {rho.mean():.4f}, min {rho.min():.4f}, seeds with rho >= 0.9: {np.mean(rho >= 0.9):.1%}"
    )


if __name__ == "__main__":
    main()
