"""style_features: what Chatbot Arena's style control holds fixed about an answer: its length and Markdown structure."""

import re

from biarena.judges.interaction import word_count

STYLE_FEATURES = ("length", "headers", "bold", "list_items")
"""Words, Markdown headers, bold spans and list items of an answer's text."""

_HEADER = re.compile(r"^\s{0,3}#{1,6}\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)


def style_features(text: str | None) -> tuple[float, float, float, float]:
    """The answer's words, headers, bold spans and list items."""
    text = text or ""
    return (
        float(word_count(text)),
        float(len(_HEADER.findall(text))),
        float(len(_BOLD.findall(text))),
        float(len(_ITEM.findall(text))),
    )
