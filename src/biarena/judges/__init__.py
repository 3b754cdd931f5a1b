"""Judges: scorers that read an answer (most with a model) and conclude with named scores and a trace."""

from biarena.judges.base import Judge, Judgement, JudgeReplyError, JudgeScorer, ScorerContext, TraceEntry

__all__ = ["Judge", "JudgeReplyError", "JudgeScorer", "Judgement", "ScorerContext", "TraceEntry"]
