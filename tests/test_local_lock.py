"""The local model generates one reply at a time per machine."""

import threading
from pathlib import Path

from biarena.llm.local_provider import machine_turn


def test_a_second_generation_waits_for_the_first(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    order: list[str] = []
    first_in = threading.Event()
    release = threading.Event()

    def first() -> None:
        with machine_turn(model):
            order.append("first in")
            first_in.set()
            release.wait(10)
            order.append("first out")

    def second() -> None:
        first_in.wait(10)
        with machine_turn(model):
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    first_in.wait(10)
    second_thread = threads[1]
    second_thread.join(0.5)
    assert order == ["first in"]  # the second is still waiting for the turn
    release.set()
    for t in threads:
        t.join(10)
    assert order == ["first in", "first out", "second in"]


def test_a_model_in_a_directory_that_cannot_hold_the_lock_still_generates(tmp_path: Path) -> None:
    with machine_turn(tmp_path / "missing" / "model.gguf"):
        entered = True
    assert entered
