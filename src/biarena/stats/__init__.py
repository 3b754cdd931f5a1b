"""Statistics: Bradley-Terry with bootstrap intervals, its simulation, agreement, ANOVA, Hotelling's T^2, bootstrap.

Each name is imported from its module when first used, so a command that needs one statistic loads only its module.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "agreement": ("Agreement", "agreed_subset_accuracy", "agreement", "kappa", "KappaInterval", "kappa_interval"),
    "anova": ("Anova", "anova_by_group"),
    "bootstrap": ("Interval", "PairedDifference", "mean_interval", "paired_bootstrap"),
    "bradley_terry": ("BradleyTerry", "fit_bradley_terry"),
    "hotelling": ("Hotelling", "hotelling_paired"),
    "simulation": ("Simulation", "simulate_votes"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
