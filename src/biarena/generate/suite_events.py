"""What the CORGI suite's build reports besides messages and stages: the questions it wrote, and its audit."""

from dataclasses import dataclass
from pathlib import Path

from biarena.generate.corgi_suite.audit import Audit


@dataclass(frozen=True)
class SuiteBuilt:
    """The suite is written at `out`: `counts[database][type]` questions of each type (`corgi:type1`...)."""

    out: Path
    counts: dict[str, dict[str, int]]
    questions: int


@dataclass(frozen=True)
class SuiteAudited:
    """The suite's quality figures (asked for with `audit`)."""

    figures: Audit
