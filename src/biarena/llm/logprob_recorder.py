"""LogprobRecorder: the log-probabilities of a llama.cpp reply's tokens, read from the logits as each is sampled.

llama-cpp-python reports log-probabilities only for a model loaded with `logits_all`, which keeps the logits of
every place of the context (n_ctx x n_vocab floats: gigabytes for the embedded model) and slows reading the prompt.
A logits processor sees the logits of each place as its token is sampled, so the likeliest tokens can be kept as the
reply is written, at the cost of one pass over the vocabulary per token.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from biarena.llm.types import TokenLogprob


class LogprobRecorder:
    """A llama-cpp-python logits processor that keeps, for each place of the reply, its `top` likeliest tokens with
    their log-probabilities (the model's own, before penalties, grammar and temperature), leaving the logits as they
    are."""

    def __init__(self, llama: Any, top: int) -> None:
        self.llama = llama
        self.top = max(1, top)
        self._places: list[tuple[tuple[tuple[str, float], ...], int | None, float | None]] = []
        """Per place: its likeliest tokens, then the token sampled there and its log-probability, once known."""
        self._last: np.ndarray | None = None
        """The log-probabilities of the latest place, to read its sampled token's once it is known."""

    def __call__(self, input_ids: Sequence[int], scores: np.ndarray) -> np.ndarray:
        """Record the place whose logits these are; the token sampled at the place before is the input's last."""
        if self._last is not None and len(input_ids):
            top, _, _ = self._places[-1]
            token = int(input_ids[-1])
            self._places[-1] = (top, token, float(self._last[token]))
        logits = np.asarray(scores, dtype=np.float64)
        finite = np.where(np.isfinite(logits), logits, -np.inf)
        peak = float(finite.max())
        logprobs = finite - (peak + float(np.log(np.exp(finite - peak).sum())))
        count = min(self.top, logprobs.size)
        ids = np.argpartition(-logprobs, count - 1)[:count]
        ids = ids[np.argsort(-logprobs[ids], kind="stable")]
        self._places.append((tuple((self._text(int(i)), float(logprobs[i])) for i in ids), None, None))
        self._last = logprobs
        return scores

    def _text(self, token: int) -> str:
        return self.llama.detokenize([token]).decode("utf-8", errors="ignore")

    def tokens(self, text: str) -> tuple[TokenLogprob, ...]:
        """The reply's tokens with their log-probabilities: each place whose token is known, and the last place when
        the rest of `text` is one token (a place that ended the reply, its end-of-text token, is not one of them)."""
        read = [
            TokenLogprob(self._text(token), logprob, top) for top, token, logprob in self._places if token is not None
        ]
        written = "".join(entry.token for entry in read)
        rest = text[len(written) :] if text.startswith(written) else ""
        if self._places and self._places[-1][1] is None and rest and self._last is not None:
            ids = self.llama.tokenize(rest.encode("utf-8"), add_bos=False, special=False)
            logprob = float(self._last[ids[0]]) if len(ids) == 1 else None
            read.append(TokenLogprob(rest, logprob, self._places[-1][0]))
        return tuple(read)
