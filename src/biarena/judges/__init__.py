"""Judges: scorers that read an answer (most with a model) and conclude with named scores and a trace."""

from biarena.judges.base import Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry

__all__ = ["JudgeReplyError", "JudgeScorer", "Judgement", "ScorerContext", "TraceEntry"]
