"""Campaigns: a matrix of benchmarks x systems x models x scorers x seeds as content-addressed work units, run in
shares (shards) on a local process pool or a Ray cluster, and merged.

Each name is imported from its module when first used.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "CampaignFolder": "folder",
    "campaign_runs": "layout",
    "merge_campaigns": "merge",
    "Plan": "plan",
    "load_plan": "plan",
    "CampaignProgress": "run",
    "CampaignSummary": "run",
    "Shard": "run",
    "parse_shard": "run",
    "run_campaign": "run",
    "Cell": "units",
    "WorkUnit": "units",
    "expand_plan": "units",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
