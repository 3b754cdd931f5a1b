"""Campaigns: a matrix of benchmarks x systems x models x scorers x seeds as content-addressed work units, run in
shares (shards) on a local process pool or a Ray cluster, and merged.

Each name is imported from its module when first used.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "folder": "CampaignFolder",
    "layout": "campaign_runs",
    "merge": "merge_campaigns",
    "plan": ("Plan", "load_plan"),
    "run": ("CampaignProgress", "CampaignSummary", "Shard", "parse_shard", "run_campaign"),
    "units": ("Cell", "WorkUnit", "expand_plan"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
