"""SharedCpu holds the caller and one other thread on the caller's CPU, one statement per CPU, and always lets go."""

import os
import subprocess
from collections.abc import Iterator

import pytest

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


def test_a_hold_puts_both_threads_on_the_callers_cpu_and_a_release_restores_them(sleepers: list[int]) -> None:
    everywhere = os.sched_getaffinity(0)
    held = SharedCpu(sleepers[0])
    mine, theirs = os.sched_getaffinity(0), os.sched_getaffinity(sleepers[0])
    held.release()
    held.release()  # a second release changes nothing
    assert len(mine) == 1 and mine == theirs and mine <= everywhere
    assert os.sched_getaffinity(0) == everywhere
    assert os.sched_getaffinity(sleepers[0]) == everywhere


def test_one_statement_per_cpu_so_two_at_once_never_share_one(sleepers: list[int]) -> None:
    everywhere = os.sched_getaffinity(0)
    first = SharedCpu(sleepers[0])
    second = SharedCpu(sleepers[1])  # this thread's CPU is held already: the second is left free
    try:
        assert len(os.sched_getaffinity(sleepers[0])) == 1
        assert os.sched_getaffinity(sleepers[1]) == everywhere
    finally:
        second.release()
        first.release()
    again = SharedCpu(sleepers[1])  # released: the CPU can be held again
    try:
        assert len(os.sched_getaffinity(sleepers[1])) == 1
    finally:
        again.release()
    assert os.sched_getaffinity(0) == everywhere


def test_a_thread_that_has_ended_is_not_an_error(sleepers: list[int]) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    everywhere = os.sched_getaffinity(0)
    held = SharedCpu(gone.pid)
    held.release()
    assert os.sched_getaffinity(0) == everywhere
    follow = SharedCpu(sleepers[0])  # the failed hold left its CPU free
    try:
        assert len(os.sched_getaffinity(sleepers[0])) == 1
    finally:
        follow.release()
