"""Versioned pydantic records shared by every package: questions, benchmarks, answers, scores."""

from biarena.records.answer import Answer, Step, SystemSpec, Usage
from biarena.records.benchmark import Benchmark, DatabaseRef
from biarena.records.outcome import Outcome, outcome_of
from biarena.records.question import GoldResult, Question
from biarena.records.runspec import RunSpec
from biarena.records.score import Score
from biarena.records.score_record import ScoreRecord
from biarena.records.tool_call import ToolCall
from biarena.records.trace import TraceEntry

__all__ = [
    "Answer",
    "Benchmark",
    "DatabaseRef",
    "GoldResult",
    "Outcome",
    "Question",
    "RunSpec",
    "Score",
    "ScoreRecord",
    "Step",
    "SystemSpec",
    "ToolCall",
    "TraceEntry",
    "Usage",
    "outcome_of",
]
