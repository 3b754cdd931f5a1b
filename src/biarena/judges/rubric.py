"""The judges' packaged rubrics and the CORGI rubric's shape (reading any rubric file: `biarena.scoring.rubric`)."""

from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from biarena.errors import FormatError, NotFoundError
from biarena.scoring.rubric import LoadedRubric as LoadedRubric
from biarena.scoring.rubric import load_rubric_file as load_rubric_file
from biarena.scoring.rubric import parse_rubric
from biarena.scoring.rubric import text_hash as text_hash


def builtin_rubric_text(name: str) -> str:
    """The text of a packaged rubric (`corgi.yaml`)."""
    try:
        return resources.files("biarena.judges").joinpath("rubrics", name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise NotFoundError(f"no built-in rubric '{name}'") from None


def load_builtin_rubric(name: str) -> LoadedRubric:
    """Read a packaged rubric."""
    return parse_rubric(builtin_rubric_text(name), f"builtin:{name}")


# --- the CORGI rubric's shape -------------------------------------------------------------------------------------


class Coverage(BaseModel):
    """Which question types a sub-metric is for: always (`general`) or when the answer warrants it (`unique`)."""

    model_config = ConfigDict(extra="forbid")

    general: list[str] = Field(default_factory=list)
    unique: list[str] = Field(default_factory=list)


class SubMetric(BaseModel):
    """One sub-metric with its definition and its anchors."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    coverage: Coverage
    definition: str
    anchors: dict[int, str] = Field(default_factory=dict)
    """Score -> what an answer at that score looks like (0, 3 and 5 in CORGI)."""
    computed: Literal["ser"] | None = None
    """Measured from the answer itself instead of asked of a model."""

    @model_validator(mode="after")
    def _anchored(self) -> "SubMetric":
        if self.computed is None and len(self.anchors) < 2:
            raise ValueError(f"sub-metric '{self.key}' needs anchors (e.g. 0, 3 and 5) to be scored against")
        return self


class Dimension(BaseModel):
    """A dimension: the mean of its applicable sub-metrics."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str
    sub_metrics: list[SubMetric] = Field(min_length=1)


class CorgiRubric(BaseModel):
    """CORGI's rubric: dimensions of sub-metrics scored on one scale, per question type."""

    model_config = ConfigDict(extra="forbid")

    rubric: Literal["corgi"]
    version: int | str = 1
    scale: tuple[int, int] = (0, 5)
    question_types: dict[str, str]
    """Type key (`type2`, as in the `corgi:type2` label) -> what such a question asks for."""
    judged_types: list[str]
    """Types the judge scores (CORGI applies its framework to types 2-4)."""
    dimensions: list[Dimension] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> "CorgiRubric":
        low, high = self.scale
        if not low < high:
            raise ValueError(f"scale {list(self.scale)}: the low end must be below the high end")
        types = set(self.question_types)
        unknown = [t for t in self.judged_types if t not in types]
        if unknown:
            raise ValueError(f"judged type '{unknown[0]}' is not among question_types ({', '.join(types)})")
        seen: set[str] = set()
        for dimension in self.dimensions:
            if dimension.key in seen:
                raise ValueError(f"the key '{dimension.key}' is used twice")
            seen.add(dimension.key)
            for metric in dimension.sub_metrics:
                if metric.key in seen:
                    raise ValueError(f"the key '{metric.key}' is used twice")
                seen.add(metric.key)
                for kind in (metric.coverage.general, metric.coverage.unique):
                    wrong = [t for t in kind if t not in types]
                    if wrong:
                        raise ValueError(f"sub-metric '{metric.key}': unknown question type '{wrong[0]}'")
                outside = [score for score in metric.anchors if not low <= score <= high]
                if outside:
                    raise ValueError(f"sub-metric '{metric.key}': anchor {outside[0]} is outside the scale")
        return self

    def sub_metric(self, key: str) -> SubMetric:
        """The sub-metric with this key."""
        return next(m for d in self.dimensions for m in d.sub_metrics if m.key == key)

    def dimension_of(self, key: str) -> Dimension:
        """The dimension a sub-metric belongs to."""
        return next(d for d in self.dimensions if any(m.key == key for m in d.sub_metrics))

    def general(self, qtype: str) -> list[str]:
        """Sub-metric keys every answer of this type is scored on."""
        return [m.key for d in self.dimensions for m in d.sub_metrics if qtype in m.coverage.general]

    def unique(self, qtype: str) -> list[str]:
        """Sub-metric keys the discriminator may add for an answer of this type (those of its own type first)."""
        general = set(self.general(qtype))
        metrics = [m for d in self.dimensions for m in d.sub_metrics if m.key not in general and m.coverage.unique]
        own = [m.key for m in metrics if qtype in m.coverage.unique]
        return own + [m.key for m in metrics if qtype not in m.coverage.unique]


def corgi_rubric(loaded: dict[str, Any], source: str = "the rubric") -> CorgiRubric:
    """Validate a CORGI rubric; a one-line FormatError naming the first problem."""
    try:
        return CorgiRubric.model_validate(loaded)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise FormatError(f"{source}: {where + ': ' if where else ''}{message}") from None
