"""The ways `generate questions` makes questions (`--method`), and the options each takes (`-O NAME=VALUE`)."""

import importlib
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from biarena.options import Options
from biarena.registry import Registry


def _some_of(values: list[str] | None, module_attribute: str) -> list[str] | None:
    """`values` lower-cased, each checked against the choices at `module:attribute` (imported only now)."""
    if values is None:
        return None
    module, _, attribute = module_attribute.partition(":")
    choices = tuple(getattr(importlib.import_module(module), attribute))
    wanted = list(dict.fromkeys(v.strip().lower() for v in values if v.strip()))
    unknown = [v for v in wanted if v not in choices]
    if not wanted or unknown:
        raise ValueError(f"must be some of {', '.join(choices)}")
    return wanted


class LLMQuestionsOptions(Options):
    """BI-Bench's pipeline (`--method llm`): questions per category x complexity, answerability and tables checked."""

    checker: str | None = None
    """A different model that checks answerability and table completeness (default: the generating model)."""
    categories: list[str] | None = None
    """Only these categories: descriptive, diagnostic, predictive, prescriptive (default: all)."""
    complexities: list[str] | None = None
    """Only these complexities: basic, intermediate, advanced (default: all)."""
    per_cell: int = Field(3, ge=1)
    """Questions asked for per category and complexity."""
    sample_rows: int = Field(2, ge=0)
    """Sample rows per table shown with the schema."""

    @field_validator("categories")
    @classmethod
    def _categories(cls, values: list[str] | None) -> list[str] | None:
        return _some_of(values, "biarena.generate.bibench_questions:CATEGORIES")

    @field_validator("complexities")
    @classmethod
    def _complexities(cls, values: list[str] | None) -> list[str] | None:
        return _some_of(values, "biarena.generate.bibench_questions:COMPLEXITIES")


class TemplateQuestionsOptions(Options):
    """The template factory (`--method template`): BIS-category questions with gold SQL, from a roles annotation."""

    roles: Path
    """roles.yaml: the database's column roles (metrics, dimensions, time, joins, mappings)."""
    languages: list[Literal["en", "zh"]] = Field(default_factory=lambda: ["en"])
    """Languages of the questions: en, zh."""
    per_category: int = Field(3, ge=1)
    """Questions per category (and language)."""
    seed: int = 0
    """Random seed: the same seed gives the same questions."""


METHODS: Registry[type[Options]] = Registry(
    "question-method",
    {
        "llm": "biarena.generate.question_methods:LLMQuestionsOptions",
        "template": "biarena.generate.question_methods:TemplateQuestionsOptions",
    },
)
"""How `generate questions` makes questions (`--method`), each by the options model it takes."""
