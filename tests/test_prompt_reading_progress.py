"""While the local model reads a long prompt, the progress tells tokens read of the prompt's, the rate and the time
left, on a line of its own that fits an 80-column terminal; the prompt is evaluated in the batches llama.cpp uses."""

import io
import re
import time
from contextlib import ExitStack

import pytest
from llama_cpp import Llama
from rich.console import Console

import biarena.llm.writing_notices as writing
from biarena.cli.event_view import NoticeBar
from biarena.cli.run_view import RunView
from biarena.llm.notices import Notice, listening
from biarena.llm.speculative_llama import SpeculativeLlama
from biarena.llm.writing_notices import Tally, reading_text, writing_notices


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(writing.time, "monotonic", lambda: now[0])
    return now


def reading(
    read: int, total: int = 4472, *, kept: int = 0, seconds: float = 27.0, since_batch: float = 0.0, now: float = 1000.0
) -> Tally:
    """A tally of a prompt being read: `read` of `total` tokens in `seconds`, `kept` of them from the previous
    prompt, the last batch read `since_batch` seconds ago."""
    return Tally(
        prompt_tokens=total,
        prompt_read=read,
        reading_from=kept,
        reading_started_at=now - seconds - since_batch,
        prompt_read_at=now - since_batch,
    )


def test_the_line_tells_tokens_read_of_the_prompt_the_rate_and_the_time_left(clock) -> None:
    line = reading_text(reading(1024), "local model", "reading the prompt", 27.4)
    # 1,024 tokens in 27 s: 37.9 tok/s, and 3,448 tokens to go at that rate: 91 s
    assert line == "local model reading the prompt 1,024/4,472 tokens · 38 tok/s · 1m 31s left"
    # a prefix kept from the previous prompt counts as read, but not in the rate
    kept = reading_text(reading(2560, kept=1536), "local model", "reading the prompt", 27.0)
    assert kept == "local model reading the prompt 2,560/4,472 tokens · 38 tok/s · 50s left"
    long = reading_text(reading(512, 40_000, seconds=30.0), "local model", "reading the prompt", 30.0)
    assert long.endswith("512/40,000 tokens · 17 tok/s · 38m 34s left")


def test_between_two_batches_the_rate_holds_and_the_time_left_counts_down(clock) -> None:
    # the rate of the batches read so far (1,024 tokens in 27 s), the 91 s it predicted less the 30 s since
    later = reading_text(reading(1024, since_batch=30.0), "local model", "reading the prompt", 57.0)
    assert later == "local model reading the prompt 1,024/4,472 tokens · 38 tok/s · 1m 01s left"
    # slower than foreseen: the count stays at a second rather than going below
    late = reading_text(reading(1024, since_batch=120.0), "local model", "reading the prompt", 147.0)
    assert late.endswith("38 tok/s · 1s left")


def test_before_the_first_batch_is_read_the_line_counts_the_seconds(clock) -> None:
    assert reading_text(reading(0, seconds=4.0), "local model", "reading the prompt", 4.2) == (
        "local model reading the prompt 0/4,472 tokens · 4 s"
    )
    # a model that does not count its prompt (a server) is told as before
    assert reading_text(Tally(), "openai:m", "waiting for the first token", 12.0) == (
        "openai:m waiting for the first token (12 s)"
    )


def _until_heard(heard: list[Notice], start: str) -> None:
    """Wait for the notices' thread to tell `start` (on a busy machine it may wake late; it is not timed)."""
    for _ in range(3000):
        if any(n.text.startswith(start) for n in heard):
            return
        time.sleep(0.01)


def test_the_notices_follow_the_prompt_as_it_is_read_then_the_writing(monkeypatch) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.05)
    heard: list[Notice] = []
    tally = Tally(prompt_tokens=2048, reading_started_at=time.monotonic())
    with listening(heard.append), writing_notices(tally):
        _until_heard(heard, "local model reading the prompt 0/2,048 tokens")
        for read in (512, 1024, 1536, 2048):
            tally.prompt_read = read
            _until_heard(heard, f"local model reading the prompt {read:,}/2,048 tokens")
        tally.add(exact=5)
        _until_heard(heard, "local model writing: 5 tokens")
    texts = [n.text for n in heard if not n.ended]
    assert texts[0].startswith("local model reading the prompt 0/2,048 tokens · ")
    counted = [t for t in texts if "tok/s ·" in t]
    assert any(t.startswith("local model reading the prompt 1,024/2,048 tokens · ") for t in counted)
    assert all(t.endswith(" left") for t in counted)
    assert texts[-1].startswith("local model writing: 5 tokens")


def render(bar: NoticeBar, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), force_terminal=True, color_system=None, legacy_windows=False)
    console.print(bar.get_renderable())
    return console.file.getvalue().rstrip("\n").split("\n")


def run_bar(width: int, notice: str) -> list[str]:
    bar = NoticeBar(RunView.counters, RunView.narrow_counters, console=Console(width=width), auto_refresh=False)
    bar.add_task("sequential", total=70, completed=12, ran=10, sql_failed=1, no_answer=1, calls=24, tokens=101_234)
    bar.notice = notice
    return render(bar, width)


def test_at_80_columns_the_bar_and_the_reading_line_each_fit_whole(clock) -> None:
    notice = reading_text(reading(10_240, 12_472, seconds=270.0), "local model", "reading the prompt", 270.0)
    lines = run_bar(80, notice)
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines)
    bar_line, notice_line = lines
    assert "sequential" in bar_line and "12/70" in bar_line and "no answer 1" in bar_line
    assert "…" not in bar_line and re.search(r"(\d+:\d\d:\d\d|-:--:--)$", bar_line.rstrip())  # the run's time left
    assert notice_line == notice  # nothing cut: tokens read of the total, the rate and the time left
    assert "10,240/12,472 tokens" in notice_line and notice_line.endswith("38 tok/s · 59s left")


def test_a_wide_terminal_shows_every_counter_and_the_notice_under_the_bar() -> None:
    lines = run_bar(160, "local model writing: 12 tokens, 9.0 tok/s")
    assert len(lines) == 2 and all(len(line) <= 160 for line in lines)
    assert "calls 24 · tokens 101234" in lines[0]
    assert lines[1] == "local model writing: 12 tokens, 9.0 tok/s"
    assert len(run_bar(160, "")) == 1  # no notice: the bar alone


def test_the_prompt_is_evaluated_in_the_batches_llama_cpp_would_make_and_counted_after_each(monkeypatch) -> None:
    llama = SpeculativeLlama.__new__(SpeculativeLlama)  # no weights: only the reading is exercised
    llama._stack = ExitStack()  # what Llama's close() releases
    llama.draft_model, llama.n_batch, llama.n_tokens = None, 4, 3  # 3 tokens kept from the previous prompt
    llama.written, llama.first_written_at = 0, None
    llama.prompt_tokens = llama.prompt_read = llama.reading_from = 0
    llama.reading_started_at, llama._prompt_evaluated = None, False
    evaluated: list[tuple[list[int], int]] = []

    def evaluate(self, tokens) -> None:
        evaluated.append((list(tokens), self.prompt_read))
        self.n_tokens += len(tokens)

    monkeypatch.setattr(Llama, "eval", evaluate)
    llama.eval(list(range(10)))
    # the slices Llama.eval itself makes (range(0, len, n_batch)), each counted once it is evaluated
    assert evaluated == [([0, 1, 2, 3], 3), ([4, 5, 6, 7], 7), ([8, 9], 11)]
    assert (llama.prompt_tokens, llama.prompt_read, llama.reading_from) == (13, 13, 3)
    assert llama.reading_started_at <= llama.prompt_read_at
    # once the reply is being written, a token is evaluated as it always was: one call, the prompt count unchanged
    llama.first_written_at = time.monotonic()
    llama.eval([42])
    assert evaluated[-1] == ([42], 13) and llama.prompt_read == 13
