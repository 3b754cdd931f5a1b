"""Tokens per second of one fixed prompt: biarena's `local` provider vs llama-cpp-python called directly.

Both generate the same number of tokens from the same prompt with the same model file, side by side.
Run: python perf/local_model.py [--tokens 128] [--rounds 3]
"""

import argparse
import time

from biarena.llm import ChatRequest
from biarena.llm.local_provider import LocalProvider, load_llama

PROMPT = [
    {"role": "system", "content": "You are an expert SQL analyst. Write SQLite SQL."},
    {
        "role": "user",
        "content": "Table sales(day TEXT, city TEXT, amount REAL). Write a query for the daily revenue "
        "per city over the last 7 days, then explain it step by step in detail.",
    },
]


def main() -> None:
    """Time both paths alternately and print tokens/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    provider = LocalProvider()
    llama = load_llama(provider.path, provider.context)
    request = ChatRequest.make(PROMPT, max_tokens=args.tokens, temperature=0.0)
    provider.complete(request)  # warm up: load the model, fill the prompt cache

    totals = {"biarena": [0.0, 0], "direct": [0.0, 0]}
    for _ in range(args.rounds):
        for name in ("direct", "biarena"):
            llama.reset()  # no prompt cache: both evaluate the full prompt
            started = time.perf_counter()
            if name == "biarena":
                tokens = provider.complete(request).completion_tokens
            else:
                reply = llama.create_chat_completion(messages=PROMPT, max_tokens=args.tokens, temperature=0.0, seed=0)
                tokens = reply["usage"]["completion_tokens"]
            totals[name][0] += time.perf_counter() - started
            totals[name][1] += tokens
    rates = {name: tokens / seconds for name, (seconds, tokens) in totals.items()}
    for name, rate in rates.items():
        print(f"{name:8s} {rate:6.2f} tokens/s ({totals[name][1]} tokens in {totals[name][0]:.1f} s)")
    print(f"ratio biarena/direct: {rates['biarena'] / rates['direct']:.3f} (target >= 0.95)")


if __name__ == "__main__":
    main()
