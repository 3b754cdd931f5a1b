"""Prompt templates (files beside this module, versioned by their hash) and parsing of model replies."""

import hashlib
import re
from functools import cache
from importlib import resources

import jinja2

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)
_SQL_BLOCK = re.compile(r"```(?:sql|sqlite|postgres|postgresql|duckdb)?\s*\n?(.*?)```", re.S | re.I)
_BARE_SQL = re.compile(r"^\s*((?:WITH|SELECT)\b.*?)(?:;\s*$|\Z)", re.S | re.I | re.M)


@cache
def template_text(name: str) -> str:
    """The text of prompt template `name` (prompts/<name>.txt)."""
    return resources.files("biarena.agents").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: object) -> str:
    """Render prompt template `name`."""
    return _ENV.from_string(template_text(name)).render(**values).strip()


def prompt_hash(*names: str) -> str:
    """A short hash of the templates an agent uses: a changed prompt is a different system."""
    digest = hashlib.sha256()
    for name in sorted(names):
        digest.update(name.encode() + b"\0" + template_text(name).encode())
    return digest.hexdigest()[:12]


def sql_blocks(text: str) -> list[str]:
    """SQL statements in a reply: fenced code blocks, or a bare statement when there is no block."""
    blocks = [b.strip().rstrip(";").strip() for b in _SQL_BLOCK.findall(text)]
    blocks = [b for b in blocks if b]
    if blocks:
        return blocks
    match = _BARE_SQL.search(text)
    return [match.group(1).strip().rstrip(";").strip()] if match else []


def plan_of(text: str) -> str | None:
    """The plan an agent wrote before its queries ("Plan: ..."), when there is one."""
    match = re.search(r"plan\s*:\s*(.*?)(?:\n\s*query\s*1|```|\Z)", text, re.S | re.I)
    if match and match.group(1).strip():
        return match.group(1).strip()
    head = _SQL_BLOCK.split(text)[0].strip()
    return head or None


def table_text(columns: list[str], rows: list[list], limit: int = 20) -> str:
    """A result as a small pipe table for prompts and answers."""
    if not columns:
        return "(no result)"
    lines = [" | ".join(columns)]
    for row in rows[:limit]:
        lines.append(" | ".join("NULL" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v)) for v in row))
    if len(rows) > limit:
        lines.append(f"... ({len(rows)} rows in all)")
    if not rows:
        lines.append("(no rows)")
    return "\n".join(lines)
