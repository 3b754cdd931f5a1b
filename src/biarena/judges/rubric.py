"""Rubrics: YAML data files a judge scores against (its own, or a user's copy passed with --rubric), with a hash."""

import hashlib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from biarena.errors import FormatError, NotFoundError
from biarena.yaml_load import load_yaml


class LoadedRubric(BaseModel):
    """A rubric as read: its kind, its data, where it came from and the hash of its text."""

    kind: str
    """The judge family it is for (`corgi`, `reference`, ...), from its `rubric:` key."""
    data: dict[str, Any]
    """The parsed YAML."""
    source: str
    """The file, or `builtin:NAME` for a packaged rubric."""
    hash: str
    """First 12 hex digits of the SHA-256 of the text."""


def text_hash(text: str) -> str:
    """The short hash a rubric's text is known by."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def builtin_rubric_text(name: str) -> str:
    """The text of a packaged rubric (`corgi.yaml`)."""
    try:
        return resources.files("biarena.judges").joinpath("rubrics", name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise NotFoundError(f"no built-in rubric '{name}'") from None


def parse_rubric(text: str, source: str) -> LoadedRubric:
    """Parse rubric text; a one-line FormatError naming `source` when it is not a YAML mapping with `rubric:`."""
    data = load_yaml(text, source)
    if not isinstance(data, dict):
        raise FormatError(f"{source}: a rubric is a YAML mapping")
    kind = data.get("rubric")
    if not isinstance(kind, str) or not kind:
        raise FormatError(f"{source}: the rubric must name the judge it is for (`rubric: corgi`)")
    return LoadedRubric(kind=kind, data=data, source=source, hash=text_hash(text))


def load_rubric_file(path: Path) -> LoadedRubric:
    """Read a rubric file a user passed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"rubric not found: {path}") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise FormatError(f"{path}: cannot read ({error.strerror or error})") from None
    return parse_rubric(text, str(path))


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
