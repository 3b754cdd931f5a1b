"""An answer's insights, as InsightBench scores them: a list the system returns (a JSON list of texts, or an object
with `insights`), else its bullets or numbered items, else its sentences; and a question's reference insights."""

import json
import re
from typing import Any

from biarena.judges.sentences import split_sentences
from biarena.records import Question

_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")


def _listed(text: str) -> list[str] | None:
    """The texts of a JSON list (or of an object's `insights` list), None when the text is not one."""
    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    if isinstance(data, dict):
        data = data.get("insights")
    if not isinstance(data, list):
        return None
    out = []
    for item in data:
        if isinstance(item, dict):
            item = item.get("insight")
        if isinstance(item, str) and item.strip():
            out.append(item.strip())
    return out


def _items(text: str) -> list[str]:
    """Bullet or numbered items, each with the lines that continue it; lines before the first item are left out."""
    items: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if _ITEM.match(line):
            current = [_ITEM.sub("", line).strip()]
            items.append("")
        elif current is not None and line.strip() and not _HEADING.match(line):
            current.append(line.strip())
        elif current is not None and not line.strip():
            current = None
            continue
        if current is not None:
            items[-1] = " ".join(current)
    return [item for item in items if item]


def answer_insights(text: str | None) -> list[str]:
    """The insights of an answer: its JSON list, else its items (two or more), else its sentences."""
    if not text or not text.strip():
        return []
    listed = _listed(text)
    if listed is not None:
        return listed
    items = _items(text)
    if len(items) >= 2:
        return items
    return split_sentences(text)


def reference_insights(question: Question) -> list[str]:
    """The ground-truth insights a question is scored against, as the published files give them (empty ones kept:
    the published score counts them 0); [] for a question that is not InsightBench's."""
    evidence: dict[str, Any] = question.evidence or {}
    if evidence.get("kind") == "insightbench-flag":
        return [str(t) for t in evidence.get("insights") or []]
    if evidence.get("kind") == "insightbench-insight":
        return [str(evidence.get("insight") or "")]
    return []


def reference_summary(question: Question) -> str | None:
    """A flag's summary (its open-ended question's), else None."""
    evidence = question.evidence or {}
    summary = evidence.get("summary") if evidence.get("kind") == "insightbench-flag" else None
    return summary if isinstance(summary, str) and summary.strip() else None
