"""Settings: what a workflow (run, score, report, ...) is asked to do, as one pydantic model per workflow.

The command line parses its flags into a workflow's settings and the Python API makes them from keyword arguments;
both then call the same library function. A misspelled keyword or a value out of range is a one-line UsageError
(with "did you mean" for a close name), said in the command line's words where a field names its flag.
"""

from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from biarena.errors import UsageError, did_you_mean


class Settings(BaseModel):
    """Base of every workflow's settings: an unknown name is refused, a made one does not change."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    @classmethod
    def of(cls, owner: str, values: Mapping[str, Any]) -> Self:
        """The settings from keyword `values`, refused in one line naming `owner` (e.g. `run()`) when a name is
        unknown (with the closest known name), a required one is missing, or a value is bad or out of range."""
        fields = cls.model_fields
        for name in values:
            if name not in fields:
                hint = did_you_mean(name, sorted(fields))
                raise UsageError(f"{owner} takes no option '{name}'{hint}")
        try:
            return cls.model_validate(dict(values))
        except ValidationError as error:
            raise UsageError(_problem(owner, cls, error, values)) from None


def flag_of(model: type[BaseModel], name: str) -> str:
    """How the command line sets field `name` (its `flag` in the field's extra schema, else the name)."""
    field = model.model_fields.get(name)
    extra = field.json_schema_extra if field is not None and isinstance(field.json_schema_extra, dict) else {}
    return str(extra.get("flag", name))


def _problem(owner: str, model: type[BaseModel], error: ValidationError, values: Mapping[str, Any]) -> str:
    """The first problem pydantic found, as one line."""
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "missing":
        return f"{owner} needs '{name}'"
    flag = flag_of(model, name)
    given = values.get(name, first.get("input"))
    if first["type"] in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        return f"{flag} {given} is out of range: it must be {_bounds(model, name)}"
    message = str(first["msg"])
    message = "must be " + message[len("Input should be ") :] if message.startswith("Input should be ") else message
    return f"{flag} {given!r}: {message}"


def _bounds(model: type[BaseModel], name: str) -> str:
    """A field's allowed range as the command line says it: `>=1`, `>=0 and <=15`."""
    signs = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    parts = []
    for constraint in model.model_fields[name].metadata:
        for attribute, sign in signs.items():
            limit = getattr(constraint, attribute, None)
            if limit is not None:
                parts.append(f"{sign}{limit}")
    return " and ".join(parts)
