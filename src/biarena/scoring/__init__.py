"""Scoring: one Scorer protocol, one registry and one run loop for everything that scores an answer.

Metrics (`biarena.metrics`) and judges (`biarena.judges`) are scorers, in the layers above this one: each
declares its scores once (ScoreInfo), the registry finds it by its "module:Class" string, and reports, `show`,
`export` and the arena read those declarations. Each name is imported from its module when
first used: importing the package loads no scorer.
"""

from biarena.lazy_exports import lazy_exports

_EXPORTS = {
    "SCORERS": "registry",
    "get_scorer": "registry",
    "default_scorers": "registry",
    "lazy": "registry",
    "ScoreInfo": "score_info",
    "Scorer": "scorer",
    "ScoreResult": "scorer",
    "make_score": "scorer",
    "ScorerContext": "context",
    "ScoringContext": "scoring_context",
    "ScoringBudget": "budget",
    "Tolerance": "tolerance",
    "LoadedRubric": "rubric",
    "JudgeReplyError": "context",
    "ScoreInfos": "infos",
    "registered_infos": "infos",
    "scorer_infos": "infos",
    "ScorerSetup": "setup",
    "setup_scorers": "setup",
    "ScoreProgress": "loop",
    "ScoreSummary": "loop",
    "score_run": "loop",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
