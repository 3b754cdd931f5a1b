"""Prompt-lookup drafting: guess the next tokens of a reply from what followed the same tokens earlier in its context.

An analyst's reply copies much of its prompt (table and column names into SQL, figures from query results into
prose): when the last few tokens occurred before, the tokens that followed them then are a good guess for what
follows now. The model checks the guesses in one pass and keeps the ones it would have chosen anyway
(`speculative_llama`), so a wrong guess costs time, never a different reply.
"""

from collections.abc import Sequence

DEFAULT_DRAFT = 0
"""Tokens the local model drafts per pass unless `-M draft=N` says otherwise (0: one token per pass)."""

MAX_NGRAM = 3
"""The longest run of last tokens looked up; longer runs are tried first, as a longer match predicts better."""

MIN_NGRAM = 2
"""The shortest run of last tokens looked up: a single token recurs too often to predict what follows it."""


def draft_tokens(
    context: Sequence[int], limit: int, max_ngram: int = MAX_NGRAM, min_ngram: int = MIN_NGRAM
) -> list[int]:
    """Up to `limit` tokens that followed the latest earlier occurrence of the context's last tokens.

    The last `max_ngram` tokens are looked up first, then shorter runs down to `min_ngram`; the latest occurrence
    wins (a reply continues what it wrote last more often than what it read first). No occurrence: no draft.
    """
    tokens = list(context)
    size = len(tokens)
    if limit <= 0:
        return []
    for n in range(min(max_ngram, size - 1), min_ngram - 1, -1):
        tail = tokens[size - n :]
        last = tail[-1]
        for end in range(size - 2, n - 2, -1):  # `end`: where an earlier occurrence ends, before the tail itself
            if tokens[end] == last and tokens[end - n + 1 : end + 1] == tail:
                return tokens[end + 1 : end + 1 + limit]
    return []


__all__ = ["DEFAULT_DRAFT", "MAX_NGRAM", "MIN_NGRAM", "draft_tokens"]
