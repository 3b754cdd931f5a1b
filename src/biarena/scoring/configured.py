"""Configured: the base of scorers that take options, declared as a pydantic model (`Options`), and the version
stamp that makes an answer scored with other options score again."""

import hashlib
import json
from typing import Any, ClassVar

from biarena.options import NoOptions, Options


def method_version(version: str, options: Options) -> str:
    """`version` when every option keeps its default; else `version+HASH` of the options set, so that scores made
    with other options are not taken for these."""
    changed = options.model_dump(mode="json", exclude_defaults=True)
    if not changed:
        return version
    digest = hashlib.sha256(json.dumps(changed, sort_keys=True).encode()).hexdigest()[:8]
    return f"{version}+{digest}"


class Configured:
    """A scorer made with its options: `Cls(options)` or `Cls(**values)`, validated against `Cls.Options`."""

    name: str
    version: str
    Options: ClassVar[type[Options]] = NoOptions
    """What a user may set (`biarena score -O SCORER.NAME=VALUE`, `biarena describe scorer NAME`)."""

    def __init__(self, options: Options | None = None, **values: Any) -> None:
        self.options = self.Options.resolve(options, values, f"scorer '{self.name}'")
        self.version = method_version(type(self).version, self.options)
