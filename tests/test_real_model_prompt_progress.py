"""The embedded model reads a prompt batch by batch, telling how far it has read, and replies as with one call."""

import os
import re

import pytest

import biarena.llm.writing_notices as writing
from biarena.llm.notices import Notice, listening
from biarena.llm.writing_notices import writing_notices
from tests.run_helpers import require_embedded_model

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

SCHEMA = ", ".join(f"t{n}(id, name_{n}, amount_{n}, created_at_{n})" for n in range(3))
MESSAGES = [
    {"role": "system", "content": "You are an expert SQL analyst. Write SQLite SQL. Tables: " + SCHEMA},
    {"role": "user", "content": "Write one query for the total amount_2 per name_2 in t2."},
]


def test_a_prompt_read_batch_by_batch_is_told_and_gives_the_reply_of_one_call(monkeypatch) -> None:
    require_embedded_model()
    from llama_cpp import Llama

    from biarena.llm.local_provider import LocalProvider, machine_turn
    from biarena.llm.speculative_llama import SpeculativeLlama

    path = LocalProvider().path
    threads = os.cpu_count() or 2
    # batches of 16 tokens: several in a prompt this short, so reading it takes a few of them
    llama = SpeculativeLlama(
        model_path=str(path), n_ctx=1024, n_batch=16, n_threads=threads, n_threads_batch=threads, verbose=False, seed=0
    )
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.1)
    heard: list[Notice] = []
    with machine_turn(path):  # one generation at a time on the machine, as the provider takes it
        try:
            with listening(heard.append), writing_notices(llama):
                told = llama.create_chat_completion(messages=MESSAGES, max_tokens=6, temperature=0.0, seed=0)
            total = llama.prompt_tokens
            assert total > 3 * 16 and llama.prompt_read == total
            # the prompt is read again from the start, in one call of Llama.eval (which cuts the same batches)
            llama.reset()
            monkeypatch.setattr(SpeculativeLlama, "_read_prompt", lambda self, tokens: Llama.eval(self, tokens))
            plain = llama.create_chat_completion(messages=MESSAGES, max_tokens=6, temperature=0.0, seed=0)
        finally:
            llama.close()
    assert told["choices"][0]["message"]["content"] == plain["choices"][0]["message"]["content"]
    assert told["usage"] == plain["usage"]
    reading = [n.text for n in heard if "reading the prompt" in n.text]
    counted = [t for t in reading if re.search(r"reading the prompt [\d,]+/[\d,]+ tokens · \d+ tok/s · .+ left$", t)]
    assert counted, reading
    read = [int(re.search(r"prompt ([\d,]+)/", t).group(1).replace(",", "")) for t in counted]
    assert all(n % 16 == 0 and 0 < n < total for n in read) and read == sorted(read)
