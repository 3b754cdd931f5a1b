"""LLM and deterministic judges of answers: one protocol, one registry."""

from biarena.judges.base import Judge, JudgeContext, Judgement, JudgeReplyError, TraceEntry
from biarena.judges.registry import JUDGE_CLASSES, get_judge

__all__ = ["JUDGE_CLASSES", "Judge", "JudgeContext", "JudgeReplyError", "Judgement", "TraceEntry", "get_judge"]
