"""SharedCpu holds the caller and one other thread on the caller's CPU, one statement per CPU, and always lets go."""

import os
import subprocess
import threading
from collections.abc import Iterator

import pytest

from biarena.db import shared_cpu
from biarena.db.shared_cpu import SharedCpu

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2, reason="needs Linux and 2 CPUs"
)


@pytest.fixture
def sleepers() -> Iterator[list[int]]:
    processes = [subprocess.Popen(["sleep", "30"]) for _ in range(2)]
    yield [p.pid for p in processes]
    for p in processes:
        p.kill()
        p.wait()


def test_a_hold_puts_every_thread_on_the_callers_cpu_and_a_release_restores_them(sleepers: list[int]) -> None:
    everywhere = os.sched_getaffinity(0)
    held = SharedCpu(tuple(sleepers))
    mine = os.sched_getaffinity(0)
    theirs = [os.sched_getaffinity(pid) for pid in sleepers]
    held.release()
    held.release()  # a second release changes nothing
    assert len(mine) == 1 and theirs == [mine, mine] and mine <= everywhere
    assert os.sched_getaffinity(0) == everywhere
    assert [os.sched_getaffinity(pid) for pid in sleepers] == [everywhere, everywhere]


def _hold_from_another_thread(pid: int, everywhere: set[int]) -> tuple[set[int], set[int]]:
    """Hold `pid` from a new thread free to run on every CPU; return that thread's and `pid`'s CPUs while held."""
    seen: list[set[int]] = []

    def hold() -> None:
        os.sched_setaffinity(0, everywhere)  # a new thread starts with its creator's CPUs
        held = SharedCpu((pid,))
        seen.extend([os.sched_getaffinity(0), os.sched_getaffinity(pid)])
        held.release()

    thread = threading.Thread(target=hold)
    thread.start()
    thread.join()
    return seen[0], seen[1]


def test_one_statement_per_cpu_so_two_at_once_never_share_one(
    sleepers: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    everywhere = os.sched_getaffinity(0)
    first = SharedCpu((sleepers[0],))
    try:
        (cpu,) = os.sched_getaffinity(sleepers[0])
        # another thread that runs on the held CPU leaves its statement free
        monkeypatch.setattr(shared_cpu, "_sched_getcpu", lambda: cpu)
        assert _hold_from_another_thread(sleepers[1], everywhere) == (everywhere, everywhere)
    finally:
        first.release()
    # released: the CPU can be held again
    assert _hold_from_another_thread(sleepers[1], everywhere) == ({cpu}, {cpu})
    assert os.sched_getaffinity(0) == everywhere


def test_a_thread_that_has_ended_is_not_an_error(sleepers: list[int]) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    everywhere = os.sched_getaffinity(0)
    held = SharedCpu((gone.pid, sleepers[1]))
    assert len(os.sched_getaffinity(sleepers[1])) == 1  # the threads still running are held
    held.release()
    assert os.sched_getaffinity(0) == everywhere
    follow = SharedCpu((sleepers[0],))  # the failed hold left its CPU free
    try:
        assert len(os.sched_getaffinity(sleepers[0])) == 1
    finally:
        follow.release()
