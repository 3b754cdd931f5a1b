"""style_features: what Chatbot Arena's style control holds fixed about an answer: its length and Markdown structure."""

import re
from collections.abc import Callable, Mapping

from biarena.judges.interaction import word_count
from biarena.records.vote import Vote

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


def vote_styles(
    texts: Mapping[tuple[str, str], str | None],
) -> Callable[[Vote], tuple[tuple[float, ...], tuple[float, ...]] | None]:
    """For a leaderboard's style control: each vote's two answers' style features, looked up in `texts` by
    (run id, question id), or by (system name, question id) for a vote stored before runs had ids; None when
    either answer is unknown."""

    def style(vote: Vote) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        left = texts.get((vote.left_run or vote.left_system, vote.question_id))
        right = texts.get((vote.right_run or vote.right_system, vote.question_id))
        return None if left is None or right is None else (style_features(left), style_features(right))

    return style
