"""Prompt templates (files beside this module, versioned by their hash) and results written for prompts."""

import hashlib
from functools import cache
from importlib import resources

import jinja2

from biarena.agents.system import PREVIEW_ROWS
from biarena.db.cells import cell_text
from biarena.records import Step

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)

CELL_CHARS = 300
"""Longer text in a result cell is cut for prompts (numbers never are)."""


@cache
def template_text(name: str) -> str:
    """The text of prompt template `name` (prompts/<name>.txt)."""
    return resources.files("biarena.agents").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


@cache
def _template(name: str) -> jinja2.Template:
    # Compiled once: compiling a template costs more than rendering it, and every question renders two.
    return _ENV.from_string(template_text(name))


def render(name: str, **values: object) -> str:
    """Render prompt template `name`."""
    return _template(name).render(**values).strip()


def prompt_hash(*names: str) -> str:
    """A short hash of the templates an agent uses: a changed prompt is a different system."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + template_text(name).encode())
    return digest.hexdigest()[:12]


def text_hash(text: str) -> str:
    """A short hash of a text shown to a model (the schema description, the records)."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def rows_phrase(shown: int, total: int, truncated: bool = False) -> str:
    """How many rows a reader sees: "3 rows", "first 20 of 500 rows", "first 20 of at least 100000 rows"."""
    if truncated:
        return f"first {shown} of at least {total} rows"
    if shown < total:
        return f"first {shown} of {total} rows"
    if total == 0:
        return "no rows"
    return "1 row" if total == 1 else f"{total} rows"


def table_text(
    columns: list[str],
    rows: list[list] | list[tuple],
    *,
    total: int | None = None,
    truncated: bool = False,
    limit: int = PREVIEW_ROWS,
) -> str:
    """A result as a pipe table for prompts, ending with its size ("(first 20 of 500 rows)" when cut)."""
    if not columns:
        return "(no result)"
    shown = list(rows[:limit])
    lines = [" | ".join(columns)]
    lines += [" | ".join(cell_text(v, width=CELL_CHARS) for v in row) for row in shown]
    lines.append(f"({rows_phrase(len(shown), len(rows) if total is None else total, truncated)})")
    return "\n".join(lines)


def result_text(step: Step) -> str:
    """What a step returned, for a prompt: its error, or its rows with how many there were."""
    if step.error:
        return f"error: {step.error}"
    total = step.row_count if step.row_count is not None else len(step.preview)
    return table_text(step.columns, step.preview, total=total, truncated=step.truncated)
