"""Scoring: one Scorer protocol, one registry and one run loop for everything that scores an answer.

Metrics (`biarena.metrics`) and judges (`biarena.judges`) are scorers, in the layers above this one: each
declares its scores once (ScoreInfo), the registry finds it by its "module:Class" string, and reports, `show`,
`export` and the arena read those declarations. Each name is imported from its module when
first used: importing the package loads no scorer.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "registry": ("SCORERS", "get_scorer", "default_scorers", "lazy"),
    "score_info": "ScoreInfo",
    "scorer": ("Scorer", "ScoreResult", "make_score"),
    "context": ("ScorerContext", "JudgeReplyError"),
    "scoring_context": "ScoringContext",
    "budget": "ScoringBudget",
    "tolerance": "Tolerance",
    "rubric": "LoadedRubric",
    "infos": ("ScoreInfos", "registered_infos", "scorer_infos"),
    "setup": ("ScorerSetup", "setup_scorers"),
    "loop": ("ScoreProgress", "ScoreSummary", "score_run"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = __dir__()
