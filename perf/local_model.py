"""Tokens/s of the local model on the demo's own prompts, decoded plainly and speculatively, side by side.

The prompts (`demo_prompts.json` beside this script) are requests the demo's agents made: text2sql writing SQL over
a bis-synth schema, sequential writing its plan and queries, and sequential writing its answer from real query
results. Each prompt is first evaluated once, timed apart (the prompt-evaluation vs decoding split); then every
round decodes it plainly (`draft=0`) and speculatively (`draft=N`) from the same evaluated prompt, alternating
which goes first, through biarena's `local` provider (and with `--direct`, through llama-cpp-python called
directly). It prints tokens/s of each, the speed-up per round (its spread is the machine's noise), the share of
drafted tokens accepted, and whether the speculative reply is the plain one token for token.

On a machine other processes keep busy, llama.cpp's threads spin while they wait for each other, which slows
every pass by far more than its work: `--threads 1` then measures the work of each pass.

Run: python perf/local_model.py [--draft 2] [--rounds 3] [--prompts sql,plan,answer] [--threads N] [--direct]
"""

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from biarena.llm import ChatRequest
from biarena.llm.local_provider import LocalProvider, load_llama

PROMPTS = Path(__file__).with_name("demo_prompts.json")


def request_of(prompt: dict[str, Any]) -> ChatRequest:
    """The prompt as the provider takes it."""
    return ChatRequest.make(
        prompt["messages"], max_tokens=prompt["max_tokens"], temperature=0.0, stop=tuple(prompt["stop"])
    )


def timed(provider: LocalProvider, request: ChatRequest, draft: int) -> tuple[float, int, str]:
    """Seconds, reply tokens and text of one reply at `draft`."""
    provider.draft = draft
    started = time.perf_counter()
    completion = provider.complete(request)
    return time.perf_counter() - started, completion.completion_tokens, completion.text


def direct(llama: Any, prompt: dict[str, Any]) -> tuple[float, int]:
    """Seconds and reply tokens of llama-cpp-python called directly (plain decoding)."""
    llama.draft = 0
    started = time.perf_counter()
    reply = llama.create_chat_completion(
        messages=prompt["messages"], max_tokens=prompt["max_tokens"], temperature=0.0, seed=0, stop=prompt["stop"]
    )
    return time.perf_counter() - started, reply["usage"]["completion_tokens"]


def prompt_split(provider: LocalProvider, request: ChatRequest) -> tuple[int, float, float, int]:
    """Prompt tokens, seconds evaluating them, seconds decoding and tokens decoded: one plain reply from scratch."""
    llama = provider.llama
    llama.reset()  # nothing evaluated: the whole prompt is
    first: dict[str, float] = {}
    evaluate = type(llama).eval

    def timed_eval(tokens: Any) -> None:
        started = time.perf_counter()
        evaluate(llama, tokens)
        first.setdefault("seconds", time.perf_counter() - started)
        first.setdefault("tokens", len(tokens))

    llama.eval = timed_eval
    provider.draft = 0
    try:
        started = time.perf_counter()
        completion = provider.complete(request)
        total = time.perf_counter() - started
    finally:
        del llama.eval
    return int(first["tokens"]), first["seconds"], total - first["seconds"], completion.completion_tokens


def first_difference(llama: Any, a: str, b: str) -> int | None:
    """The token where two replies first differ; None when they are the same."""
    if a == b:
        return None
    tokens_a, tokens_b = (llama.tokenize(text.encode("utf-8"), add_bos=False) for text in (a, b))
    return next((i for i, (x, y) in enumerate(zip(tokens_a, tokens_b, strict=False)) if x != y), len(tokens_a))


def main() -> None:
    """Time plain and speculative decoding alternately on each prompt and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", type=int, default=2, help="tokens drafted per pass on the speculative side")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--prompts", default="sql,plan,answer", help="names in demo_prompts.json")
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: every core, as biarena uses)")
    parser.add_argument("--direct", action="store_true", help="also time llama-cpp-python called directly")
    args = parser.parse_args()
    prompts = {p["name"]: p for p in json.loads(PROMPTS.read_text(encoding="utf-8"))}
    provider = LocalProvider()
    llama = load_llama(provider.path, provider.context, args.threads)
    totals = {"plain": [0.0, 0], "speculative": [0.0, 0], "direct": [0.0, 0]}
    all_ratios: list[float] = []
    drafted = accepted = 0
    for name in args.prompts.split(","):
        prompt = prompts[name]
        request = request_of(prompt)
        evaluated, prompt_s, decode_s, decoded = prompt_split(provider, request)
        print(f"\n{name}: {prompt['what']}")
        print(
            f"  from scratch: prompt {evaluated} tokens in {prompt_s:.1f} s ({evaluated / prompt_s:.0f} tok/s), "
            f"reply {decoded} tokens in {decode_s:.1f} s ({decoded / decode_s:.1f} tok/s): "
            f"{prompt_s / (prompt_s + decode_s):.0%} of the time on the prompt"
        )
        ratios = []
        mismatched = 0
        for round_ in range(args.rounds):
            order = ("plain", "speculative") if round_ % 2 == 0 else ("speculative", "plain")
            seconds: dict[str, float] = {}
            tokens: dict[str, int] = {}
            replies: dict[str, str] = {}
            for side in order:
                counts = llama.draft_counts
                before = counts.drafted, counts.accepted
                seconds[side], tokens[side], replies[side] = timed(
                    provider, request, args.draft if side == "speculative" else 0
                )
                if side == "speculative":
                    drafted += counts.drafted - before[0]
                    accepted += counts.accepted - before[1]
                totals[side][0] += seconds[side]
                totals[side][1] += tokens[side]
            if args.direct:
                direct_seconds, direct_tokens = direct(llama, prompt)
                totals["direct"][0] += direct_seconds
                totals["direct"][1] += direct_tokens
            rates = {side: tokens[side] / seconds[side] for side in seconds}
            ratios.append(rates["speculative"] / rates["plain"])
            where = first_difference(llama, replies["plain"], replies["speculative"])
            mismatched += where is not None
            print(
                f"  round {round_ + 1}: plain {rates['plain']:5.1f} tok/s, speculative {rates['speculative']:5.1f} "
                f"tok/s ({tokens['plain']} tokens); "
                f"speed-up {ratios[-1]:.2f}x; "
                + ("same reply" if where is None else f"replies differ from token {where}")
            )
        all_ratios += ratios
        print(
            f"  speed-up {statistics.median(ratios):.2f}x (median; {min(ratios):.2f}-{max(ratios):.2f}), "
            f"rounds with a different reply: {mismatched} of {args.rounds}"
        )
    rates = {side: count / secs for side, (secs, count) in totals.items() if secs}
    print(f"\nall prompts, draft={args.draft}, {args.rounds} rounds, {llama.n_threads} threads:")
    for side, rate in rates.items():
        print(f"  {side:12s} {rate:6.2f} tok/s ({totals[side][1]} tokens in {totals[side][0]:.1f} s)")
    print(
        f"  speed-up speculative/plain {rates['speculative'] / rates['plain']:.2f}x "
        f"(per round {min(all_ratios):.2f}-{max(all_ratios):.2f}); drafted tokens accepted "
        f"{accepted}/{drafted} ({accepted / drafted if drafted else 0:.0%})"
        + (f"; biarena plain/direct {rates['plain'] / rates['direct']:.3f} (target >= 0.95)" if args.direct else "")
    )


if __name__ == "__main__":
    main()
