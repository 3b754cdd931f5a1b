"""How reports name a run in headings, legends and tables: a short label, its full spec shown once elsewhere."""

import re
from pathlib import PurePath

from biarena.records import RunSpec

LABEL_WIDTH = 40
"""The longest label headings, chart legends and table cells show; the runs table gives the full spec."""

_QUANTIZATION = re.compile(r"[-_.](q\d[\w]*|iq\d[\w]*|f16|bf16|fp16|f32|gguf)$", re.IGNORECASE)


def clip_label(text: str, width: int = LABEL_WIDTH) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


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
