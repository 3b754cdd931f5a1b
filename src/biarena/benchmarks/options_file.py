"""read_options_file and gather_options: an agent's, importer's or built-in's options from an options file
(`--options FILE.yaml`) and `NAME=VALUE` pairs (`-O`), validated against its options model."""

from pathlib import Path
from typing import Any, TypeVar

from biarena.errors import FormatError, NotFoundError
from biarena.options import Options, option_name, parse_option_pairs, validate_options
from biarena.yaml_model import read_yaml

OptionsModel = TypeVar("OptionsModel", bound=Options)


def read_options_file(path: Path) -> dict[str, Any]:
    """An options file: a YAML (or JSON) mapping of option names to values; dates stay text for the model to read."""
    if not path.is_file():
        raise NotFoundError(f"options file not found: {path}")
    data = read_yaml(path, timestamps=False)
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        raise FormatError(f"{path}: an options file is a mapping of option names to values")
    return {option_name(key): value for key, value in data.items()}


def gather_options(
    model: type[OptionsModel],
    owner: str,
    pairs: list[str] | None = None,
    file: Path | None = None,
    flag: str = "-O",
) -> OptionsModel:
    """Options from an options file and `-O NAME=VALUE` pairs (the pairs win), validated against `model`."""
    values = read_options_file(file) if file is not None else {}
    values.update(parse_option_pairs(model, pairs or [], flag))
    return validate_options(model, values, owner, flag)
