"""Judges by name, imported when first asked for."""

from importlib import import_module

from biarena.errors import NotFoundError, did_you_mean
from biarena.judges.base import Judge

JUDGE_CLASSES: dict[str, str] = {
    "corgi": "biarena.judges.corgi:CorgiJudge",
    "corgi-single": "biarena.judges.corgi_single:CorgiSingleJudge",
    "reference": "biarena.judges.reference:ReferenceJudge",
    "peer-review": "biarena.judges.peer_review:PeerReviewJudge",
    "bibench": "biarena.judges.bibench:BiBenchJudge",
    "interaction": "biarena.judges.interaction:InteractionJudge",
}
"""Registry name -> `module:Class`; each class takes keyword options and has the Judge attributes."""


def get_judge(name: str, **options: object) -> Judge:
    """The judge registered as `name`, made with `options`; a one-line error for an unknown name."""
    if name not in JUDGE_CLASSES:
        known = list(JUDGE_CLASSES)
        raise NotFoundError(f"unknown judge '{name}'{did_you_mean(name, known)} (known: {', '.join(known)})")
    module, _, cls = JUDGE_CLASSES[name].partition(":")
    return getattr(import_module(module), cls)(**options)
