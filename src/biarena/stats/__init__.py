"""Statistics: Bradley-Terry with bootstrap intervals, its simulation, agreement, ANOVA, Hotelling's T^2, bootstrap.

Each name is imported from its module when first used, so a command that needs one statistic loads only its module.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "Agreement": "agreement",
    "agreed_subset_accuracy": "agreement",
    "agreement": "agreement",
    "kappa": "agreement",
    "KappaInterval": "agreement",
    "kappa_interval": "agreement",
    "Anova": "anova",
    "anova_by_group": "anova",
    "Interval": "bootstrap",
    "PairedDifference": "bootstrap",
    "mean_interval": "bootstrap",
    "paired_bootstrap": "bootstrap",
    "BradleyTerry": "bradley_terry",
    "fit_bradley_terry": "bradley_terry",
    "Hotelling": "hotelling",
    "hotelling_paired": "hotelling",
    "Simulation": "simulation",
    "simulate_votes": "simulation",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
