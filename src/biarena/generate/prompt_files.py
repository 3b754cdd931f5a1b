"""Prompt templates of the generation pipelines: text files beside each pipeline, versioned by their hash."""

import hashlib
from functools import cache
from importlib import resources

import jinja2

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)


@cache
def template_text(package: str, name: str) -> str:
    """The text of `package`'s prompt template `name` (prompts/<name>.txt)."""
    return resources.files(package).joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def render(package: str, name: str, **values: object) -> str:
    """Render `package`'s prompt template `name`."""
    return _ENV.from_string(template_text(package, name)).render(**values).strip()


def prompts_hash(package: str, names: tuple[str, ...]) -> str:
    """A short hash of a pipeline's templates: changed prompts make a different generation."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + template_text(package, name).encode())
    return digest.hexdigest()[:12]
