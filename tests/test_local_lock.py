"""The local model generates one reply at a time per machine."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from biarena.llm import local_provider
from biarena.llm.local_provider import machine_turn
from biarena.llm.notices import listening


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


def test_a_wait_for_another_process_s_turn_is_told_with_its_pid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_provider, "WAIT_NOTICE_SECONDS", 0.05)
    model = tmp_path / "model.gguf"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from biarena.llm.local_provider import machine_turn\n"
            "with machine_turn(Path(sys.argv[1])):\n    print('in', flush=True); time.sleep(1.0)",
            str(model),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "in"
        notes: list[str] = []
        with listening(lambda n: notes.append(n.text)), machine_turn(model):
            pass
        assert holder.wait(10) == 0
    finally:
        holder.kill()
    assert len(notes) == 1
    assert f"waiting for process {holder.pid} to finish generating with the local model" in notes[0]


def test_a_turn_free_at_once_says_nothing(tmp_path: Path) -> None:
    notes: list[str] = []
    with listening(lambda n: notes.append(n.text)), machine_turn(tmp_path / "model.gguf"):
        pass
    assert notes == []
