"""`biarena arena simulate`: CORGI Appendix E's check that Bradley-Terry recovers known strengths from votes."""

import typer
from rich.text import Text

from biarena.cli.console import new_table, out, print_table, row
from biarena.stats.simulation import simulate_votes


def simulate(
    systems: int = typer.Option(
        10, "--systems", help="Systems with latent strengths (log theta uniform over a width of 5)."
    ),
    comparisons: int = typer.Option(2000, "--comparisons", help="Votes, each on a pair drawn uniformly."),
    seed: int = typer.Option(0, "--seed", help="Random seed (strengths, votes and bootstrap)."),
    bootstrap: int = typer.Option(1000, "--bootstrap", help="Bootstrap resamples behind the 95% intervals."),
) -> None:
    """Simulate votes from known strengths (P(i beats j) = theta_i / (theta_i + theta_j)), fit Bradley-Terry, and print
    Spearman's rho between the true and fitted order and how often the 95% intervals cover the true strengths."""
    sim = simulate_votes(systems, comparisons, seed=seed, bootstrap=bootstrap)
    fit = sim.fit
    table = new_table(
        f"{systems} systems, {comparisons} votes, seed {seed} (log-strengths, mean 0)",
        [
            ("system", "name"),
            ("true", "number"),
            ("fitted", "number"),
            ("95% interval", "number"),
            ("votes", "number"),
            ("covered", "name"),
        ],
    )
    for name in sorted(sim.true_strength, key=lambda n: -sim.true_strength[n]):
        covered = fit.low[name] <= sim.true_strength[name] <= fit.high[name]
        row(
            table,
            name,
            f"{sim.true_strength[name]:+.3f}",
            f"{fit.strength[name]:+.3f}",
            f"[{fit.low[name]:+.3f}, {fit.high[name]:+.3f}]",
            fit.counts[name],
            "yes" if covered else "no",
        )
    print_table(table)
    out.print(Text(f"Spearman's rho (true vs fitted order): {sim.spearman:.4f} (p = {sim.spearman_p:.2g})"))
    out.print(Text(f"CI coverage: {sim.covered}/{systems} = {sim.coverage:.1%} (nominal 95%)"))
