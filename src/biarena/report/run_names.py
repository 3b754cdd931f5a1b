"""How reports name a run in headings, legends and tables: a short label, its full spec shown once elsewhere."""

import re
from pathlib import PurePath

from biarena.records import RunSpec

LABEL_WIDTH = 40
"""The longest label headings, chart legends and table cells show; the runs table gives the full spec."""

_QUANTIZATION = re.compile(r"[-_.](q\d[\w]*|iq\d[\w]*|f16|bf16|fp16|f32|gguf)$", re.IGNORECASE)


SEPARATOR = " · "
"""Between a label's system and its model (or predictions file)."""


def clip_label(text: str, width: int = LABEL_WIDTH) -> str:
    """`text` on one line in at most `width` characters: an ellipsis takes the middle of what is too long, so a label
    keeps its system whole and the end of its model or file, where the model's name usually is."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    system, separator, detail = text.partition(SEPARATOR)
    if separator and len(system) + len(separator) <= width // 2:
        return system + separator + clip_middle(detail, width - len(system) - len(separator))
    return clip_middle(text, width)


def clip_middle(text: str, width: int) -> str:
    """`text` in `width` characters: a little of its start and most of its end around an ellipsis."""
    if len(text) <= width:
        return text
    if width < 2:
        return "…"[:width]
    head = (width - 1) // 5
    tail = width - 1 - head
    return text[:head].rstrip() + "…" + text[len(text) - tail :].lstrip()


def short_model(model: str) -> str:
    """A model string as people say it: `local:…/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf` -> `qwen2.5-coder-1.5b`."""
    provider, _, name = model.partition(":")
    if not name:
        return provider
    if provider == "mock":
        return "mock"
    name = PurePath(name.split("@", 1)[0]).name or name
    for _ in range(3):
        name = _QUANTIZATION.sub("", name)
    return re.sub(r"[-_]instruct$", "", name, flags=re.IGNORECASE) or model


def short_label(spec: RunSpec) -> str:
    """The run's label when someone chose one, else `agent · model` (or `agent · predictions file`), clipped."""
    given = spec.given_label()
    if given:
        return clip_label(given)
    detail = short_model(spec.model) if spec.model else _target(spec)
    return clip_label(f"{spec.system} · {detail}" if detail and detail != spec.system else spec.system)


def _target(spec: RunSpec) -> str:
    predictions = spec.options.get("predictions")
    if predictions:
        return PurePath(str(predictions)).stem
    target = spec.options.get("target")
    return str(target) if target else ""
