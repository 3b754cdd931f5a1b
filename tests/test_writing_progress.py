"""Progress while the local model writes: tokens written and tokens/s as notices, shown on the bar or as lines."""

import threading
import time
from contextlib import ExitStack

import biarena.llm.writing_notices as writing
from biarena.cli import notice_line
from biarena.cli.notice_line import notice_listener
from biarena.llm.notices import Notice, listening
from biarena.llm.speculative_llama import SpeculativeLlama
from biarena.llm.writing_notices import writing_notices


class Writer:
    """Stands in for the loaded model: `written` grows as a reply is written."""

    written = 0
    first_written_at: float | None = None


def test_a_reply_being_written_is_told_with_tokens_and_rate(monkeypatch) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.05)
    heard: list[Notice] = []
    llama = Writer()
    with listening(heard.append), writing_notices(llama):
        time.sleep(0.2)  # the prompt is being read: no token yet
        llama.first_written_at, llama.written = time.monotonic(), 0
        for _ in range(5):
            time.sleep(0.05)
            llama.written += 3
    assert heard and all(n.kind == "writing" for n in heard)
    assert heard[0].text.startswith("local model reading the prompt")
    assert heard[-1].ended and not heard[-1].text and not any(n.ended for n in heard[:-1])
    last = heard[-2]
    assert last.tokens > 0 and last.rate > 0
    assert last.text == f"local model writing: {last.tokens} tokens, {last.rate:.1f} tok/s"
    count = len(heard)
    time.sleep(0.15)
    assert len(heard) == count  # nothing is told once the reply is done


def test_the_model_counts_the_tokens_it_yields_and_passes_what_it_is_sent() -> None:
    llama = SpeculativeLlama.__new__(SpeculativeLlama)  # no weights: only the counting wrapper is used
    llama.written, llama.first_written_at = 0, None
    llama._stack = ExitStack()  # what Llama's close() releases
    sent: list[object] = []

    def inner():
        for token in (7, 8, 9):
            sent.append((yield token))

    counted = llama._counted(inner())
    assert next(counted) == 7 and llama.written == 1 and llama.first_written_at is not None
    assert counted.send([1]) == 8 and counted.send(None) == 9 and llama.written == 3
    assert list(counted) == [] and sent == [[1], None, None]


def test_a_terminal_shows_notices_on_the_bar_and_a_pipe_gets_a_line_every_ten_seconds(monkeypatch) -> None:
    shown: list[str] = []
    said: list[str] = []
    on_bar = notice_listener(True, shown.append, said.append)
    on_bar(Notice("writing", "local model writing: 12 tokens, 9.0 tok/s", tokens=12, rate=9.0))
    on_bar(Notice("wait", "the server is busy", seconds=5))
    assert shown == ["local model writing: 12 tokens, 9.0 tok/s", "waiting 5 s: the server is busy"] and not said

    clock = [100.0]
    monkeypatch.setattr(notice_line.time, "monotonic", lambda: clock[0])
    piped = notice_listener(False, shown.append, said.append)
    for tokens in range(1, 25):
        piped(Notice("writing", f"local model writing: {tokens} tokens, 2.0 tok/s", tokens=tokens, rate=2.0))
        clock[0] += 1.0
    assert said == [
        "  local model writing: 1 tokens, 2.0 tok/s",
        "  local model writing: 11 tokens, 2.0 tok/s",
        "  local model writing: 21 tokens, 2.0 tok/s",
    ]
    piped(Notice("note", "a note"))
    assert said[-1] == "a note"


def test_replies_written_at_once_are_shown_together_until_each_ends(monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(notice_line.time, "monotonic", lambda: clock[0])
    shown: list[str] = []
    on_bar = notice_listener(True, shown.append, shown.append)

    def writing(source: int, tokens: int, rate: float) -> Notice:
        text = f"openai:m writing: ~{tokens} tokens, ~{rate:.1f} tok/s"
        return Notice("writing", text, tokens=tokens, rate=rate, approximate=True, source=source)

    on_bar(writing(1, 10, 5.0))
    assert shown[-1] == "openai:m writing: ~10 tokens, ~5.0 tok/s"
    on_bar(Notice("writing", "openai:m waiting for the first token (1 s)", source=2))
    assert shown[-1] == "2 replies at once: ~10 tokens, ~5.0 tok/s"
    on_bar(writing(2, 4, 2.0))
    assert shown[-1] == "2 replies at once: ~14 tokens, ~7.0 tok/s"
    count = len(shown)
    on_bar(Notice("writing", "", source=1, ended=True))
    assert len(shown) == count  # an ended reply shows nothing, and is no longer counted
    on_bar(writing(2, 6, 2.0))
    assert shown[-1] == "openai:m writing: ~6 tokens, ~2.0 tok/s"
    on_bar(writing(3, 1, 1.0))
    clock[0] += 10  # reply 3 went silent without its ended notice: it is not counted once it is long silent
    on_bar(writing(2, 8, 2.0))
    assert shown[-1] == "openai:m writing: ~8 tokens, ~2.0 tok/s"


def test_replies_written_at_once_are_each_told_until_they_end_by_one_thread(monkeypatch) -> None:
    monkeypatch.setattr(writing, "WRITING_EVERY", 0.02)
    heard: list[Notice] = []
    writers = [Writer() for _ in range(6)]
    begun = threading.Barrier(len(writers) + 1)
    finish = threading.Event()

    def write(writer: Writer) -> None:
        with writing_notices(writer, "openai:m", "waiting for the first token"):
            begun.wait()
            finish.wait()

    with listening(heard.append):
        threads = [threading.Thread(target=write, args=(writer,)) for writer in writers]
        for thread in threads:
            thread.start()
        begun.wait()
        telling = [t for t in threading.enumerate() if t.name == "biarena-writing"]
        while len({n.source for n in heard}) < len(writers):
            time.sleep(0.01)
        finish.set()
        for thread in threads:
            thread.join()
    assert len(telling) == 1
    by_source: dict[int, list[Notice]] = {}
    for notice in heard:
        by_source.setdefault(notice.source, []).append(notice)
    assert len(by_source) == len(writers)
    for told in by_source.values():
        assert told[-1].ended and not any(n.ended for n in told[:-1])
        assert all(n.text.startswith("openai:m waiting for the first token") for n in told[:-1])
