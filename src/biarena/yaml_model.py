"""load_yaml_model, read_yaml: YAML files read into pydantic models, with errors that name the file, line and field."""

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from biarena.errors import FormatError, NotFoundError
from biarena.text_file import read_text
from biarena.yaml_load import load_yaml

Model = TypeVar("Model", bound=BaseModel)


def read_yaml(path: Path, *, timestamps: bool = True) -> Any:
    """Parse a UTF-8 YAML file; FormatError names the line of a syntax error (`timestamps=False`: dates stay text)."""
    return load_yaml(read_text(path), str(path), timestamps=timestamps)


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
