"""Rubrics: YAML data files a judge scores against (its own, or a user's copy passed with --rubric), with a hash."""

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

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
