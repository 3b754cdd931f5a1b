"""Statistics: Bradley-Terry with bootstrap intervals, its simulation, agreement, ANOVA, Hotelling's T^2, bootstrap."""

from biarena.stats.agreement import Agreement, agreed_subset_accuracy, agreement, kappa
from biarena.stats.anova import Anova, anova_by_group
from biarena.stats.bootstrap import Interval, PairedDifference, mean_interval, paired_bootstrap
from biarena.stats.bradley_terry import BradleyTerry, fit_bradley_terry
from biarena.stats.hotelling import Hotelling, hotelling_paired
from biarena.stats.simulation import Simulation, simulate_votes

__all__ = [
    "Agreement",
    "Anova",
    "BradleyTerry",
    "Hotelling",
    "Interval",
    "PairedDifference",
    "Simulation",
    "agreed_subset_accuracy",
    "agreement",
    "anova_by_group",
    "fit_bradley_terry",
    "hotelling_paired",
    "kappa",
    "mean_interval",
    "paired_bootstrap",
    "simulate_votes",
]
