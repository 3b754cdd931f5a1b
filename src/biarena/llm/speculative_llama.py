"""SpeculativeLlama: llama-cpp-python's `Llama` that drafts tokens by prompt lookup and checks them in one pass."""

import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from llama_cpp import Llama
from llama_cpp.llama_speculative import LlamaDraftModel

from biarena.llm.prompt_lookup import draft_tokens


@dataclass
class DraftCounts:
    """Drafted and accepted tokens since the counts were last reset (the last check of each reply is left out:
    where it would have ended is not known once the reply stops)."""

    checks: int = 0
    """Passes that checked at least one drafted token."""
    drafted: int = 0
    accepted: int = 0

    @property
    def acceptance(self) -> float:
        """The share of drafted tokens the model accepted."""
        return self.accepted / self.drafted if self.drafted else 0.0


class PromptLookupDraft(LlamaDraftModel):
    """llama-cpp-python's draft-model interface over `draft_tokens`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __call__(self, input_ids: npt.NDArray[np.intc], /, **kwargs: Any) -> npt.NDArray[np.intc]:
        """The drafted continuation of `input_ids` (the prompt and the reply so far)."""
        return np.array(draft_tokens(input_ids.tolist(), self.limit), dtype=np.intc)


class SpeculativeLlama(Llama):
    """A `Llama` whose replies draft up to `draft` tokens per pass from their own context (0: plain decoding).

    llama-cpp-python's `generate` already checks the tokens of a `draft_model`: it samples each position of the
    batch [last token, drafts...] with the request's sampler chain (penalties, the grammar, greedy or seeded
    sampling), keeps going while the chosen token is the drafted one, and removes the rest from the KV cache. The
    sampler accepts only the tokens it chose, so the grammar advances over kept tokens only, and every kept token
    costs the sampler one random draw, as in plain decoding: each token is the one plain decoding would choose from
    the same logits (a batch's logits can differ from a single token's in the last bits). But a `Llama` made with a
    draft model keeps logits for every token it evaluates (`logits_all`), prompts included, which slows the prompt
    and holds a context-sized logits buffer. Here the draft model is set for one reply at a time, and only the
    batches that check drafts ask for logits at every position.
    """

    draft: int = 0
    """Tokens drafted per pass for the next replies; set per request by the provider."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.draft_counts = DraftCounts()
        self.written = 0
        """Tokens written so far of the reply being generated."""
        self.first_written_at: float | None = None
        """When the reply's first token came (`time.monotonic`), after the prompt was read."""
        self.prompt_tokens = 0
        """Tokens of the reply's prompt."""
        self.prompt_read = 0
        """Of those, read so far: the prefix kept from the previous prompt, then each batch once it is evaluated."""
        self.reading_from = 0
        """Tokens already read (kept) when reading the prompt began."""
        self.reading_started_at: float | None = None
        """When reading the prompt began (`time.monotonic`)."""
        self.prompt_read_at: float | None = None
        """When `prompt_read` last grew (`time.monotonic`)."""
        self._prompt_evaluated = False
        self._last_check: tuple[int, int] | None = None

    def generate(self, tokens: Sequence[int], **kwargs: Any) -> Generator[int, Sequence[int] | None, None]:
        """`Llama.generate`, drafting by prompt lookup when `draft` > 0; `written` counts the tokens it yields and
        `prompt_read` the prompt's tokens read (see `eval`)."""
        self.written = 0
        self.first_written_at = None
        self.prompt_tokens = self.prompt_read = self.reading_from = 0
        self.reading_started_at = self.prompt_read_at = None
        if self.draft <= 0:
            yield from self._counted(super().generate(tokens, **kwargs))
            return
        self.draft_model = PromptLookupDraft(self.draft)
        self._prompt_evaluated = False
        self._last_check = None
        try:
            yield from self._counted(super().generate(tokens, **kwargs))
        finally:
            self.draft_model = None

    def _counted(self, inner: Generator[int, Sequence[int] | None, None]) -> Generator[int, Sequence[int] | None, None]:
        """The tokens of `inner`, counted as they come (what a progress line reads while the reply is written)."""
        sent: Sequence[int] | None = None
        while True:
            try:
                token = inner.send(sent)
            except StopIteration:
                return
            if self.first_written_at is None:
                self.first_written_at = time.monotonic()
            self.written += 1
            sent = yield token

    def eval(self, tokens: Sequence[int]) -> None:
        """Evaluate tokens: the prompt as `Llama.eval` does; then [last token, drafts...] with logits at each."""
        if self.draft_model is None or not self._prompt_evaluated:
            if self.first_written_at is None:
                self._read_prompt(tokens)
            else:
                super().eval(tokens)
            self._prompt_evaluated = self.draft_model is not None
            return
        batch = [int(token) for token in tokens]
        start = self.n_tokens
        self._count(start, len(batch) - 1)
        self._ctx.kv_cache_seq_rm(-1, start, -1)
        self._batch.set_batch(batch=batch, n_past=start, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[start : start + len(batch)] = batch
        self.n_tokens += len(batch)
        self._requires_eval = False

    def _read_prompt(self, tokens: Sequence[int]) -> None:
        """Evaluate the prompt's tokens that are not kept from the previous prompt, counting `prompt_read` after each
        batch. `Llama.eval` cuts the tokens into the same `n_batch` slices and evaluates them in the same order, so
        the model's state, and the reply, are the same as with one call."""
        self.reading_from = self.prompt_read = self.n_tokens
        self.prompt_tokens = self.n_tokens + len(tokens)
        self.reading_started_at = time.monotonic()
        for start in range(0, len(tokens), self.n_batch):
            super().eval(tokens[start : start + self.n_batch])
            self.prompt_read, self.prompt_read_at = self.n_tokens, time.monotonic()

    def _count(self, start: int, drafted: int) -> None:
        """Count the previous check's outcome: it kept the tokens up to where this one starts."""
        if self._last_check is not None:
            previous_start, previous_drafted = self._last_check
            self.draft_counts.accepted += min(start - previous_start - 1, previous_drafted)
            self.draft_counts.drafted += previous_drafted
            self.draft_counts.checks += previous_drafted > 0
        self._last_check = (start, drafted)


__all__ = ["DraftCounts", "PromptLookupDraft", "SpeculativeLlama"]
