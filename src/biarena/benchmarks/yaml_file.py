"""YAML files read into pydantic models, with errors that name the file, line and field."""

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from biarena.benchmarks.json_file import read_text
from biarena.errors import FormatError, NotFoundError

Model = TypeVar("Model", bound=BaseModel)


class _TextTimestamps(yaml.SafeLoader):
    """A safe loader that leaves dates and times as text, so the model validating them names the field."""


_TextTimestamps.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_yaml(path: Path, *, timestamps: bool = True) -> Any:
    """Parse a UTF-8 YAML file; FormatError names the line of a syntax error (`timestamps=False`: dates stay text)."""
    text = read_text(path)
    try:
        return yaml.load(text, Loader=yaml.SafeLoader if timestamps else _TextTimestamps)
    except yaml.reader.ReaderError as error:
        raise FormatError(f"{path}: invalid YAML: {error.reason} (character {error.position})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        raise FormatError(f"{path}{where}: invalid YAML: {problem}") from None
    except RecursionError:
        raise FormatError(f"{path}: invalid YAML: nested too deeply") from None
    except ValueError as error:  # a date like 2023-13-45, or an integer beyond 4300 digits
        raise FormatError(f"{path}: invalid YAML value: {str(error).split(':')[0]}") from None


def field_errors(error: ValidationError, limit: int = 3) -> str:
    """The first validation problems as "field 'a.b': message"."""
    parts = [
        f"field '{'.'.join(str(p) for p in item['loc']) or '(top level)'}': {item['msg']}"
        for item in error.errors()[:limit]
    ]
    more = len(error.errors()) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def load_yaml_model(path: str | Path, model: type[Model], what: str) -> Model:
    """Read `path` as `model`; NotFoundError names `what` is missing, FormatError the field that is wrong."""
    source = Path(path)
    if not source.is_file():
        raise NotFoundError(f"{what} not found: {source}")
    try:
        return model.model_validate(read_yaml(source))
    except ValidationError as error:
        raise FormatError(f"{source}: {field_errors(error, limit=1)}") from None
