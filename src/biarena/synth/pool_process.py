"""PoolProcess: a generation's Faker pools drawn by this process and a helper process at once.

Faker is slow: a vertical's pools (a few thousand values per Faker column, drawn in blocks, see
`biarena.synth.kernel`) cost a second or two, spent before the first rows of the tables that use them, while the
writer (a process of its own, or the second core) waits. They depend on the spec, the scale and the seed alone, not on
any table's rows, so a helper process draws them from the last table's end backwards while this process draws them
from the first table's front as it reaches each table. Each block is claimed, under a lock, from one end or the other
of one list before it is drawn, so each is drawn once, and the two meet where their work is even. A block's values are
the same in any process (`faker_block` seeds Faker afresh for each), so the database is the same byte for byte.

The helper sends what it draws over a pipe only it writes to, and ends when no block is left to claim, or when this
process is gone (the pipe breaks).
"""

import contextlib
from itertools import accumulate
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from biarena.errors import BiarenaError
from biarena.synth.kernel import PoolBlock, assemble_pools, faker_block
from biarena.synth.writer_process import worker_context


def _draw_from_the_end(blocks: list[PoolBlock], lock: Any, ends: Any, conn: Connection) -> None:
    """The helper: claim the last unclaimed block, draw it, send it; until the two ends meet. An error goes back in
    the block's place."""
    try:
        while True:
            with lock:
                first, last = ends[0], ends[1]
                if last < first:
                    return
                ends[1] = last - 1
            try:
                drawn: Any = faker_block(blocks[last])
            except Exception as error:  # raised where the block is needed, as drawing it there would
                drawn = error
            try:
                conn.send((last, drawn))
            except (BrokenPipeError, ConnectionError):  # the drawing process is gone
                return
            except Exception:  # an error that does not pickle
                conn.send((last, RuntimeError(f"{type(drawn).__name__}: {drawn}")))
    finally:
        conn.close()


class PoolProcess:
    """The pools of every table (`blocks[i]`: the Faker pool blocks of the `i`-th table in `table_order`), drawn here
    and by a helper process at once; `pools(i)` gives the `i`-th table's, in table order."""

    def __init__(self, blocks: list[list[PoolBlock]]) -> None:
        self._blocks = blocks
        self._starts = [0, *accumulate(len(table) for table in blocks)]
        self._flat = [block for table in blocks for block in table]
        self._received: dict[int, Any] = {}
        context = worker_context(__name__)
        self._lock = context.Lock()
        self._ends = context.RawArray("q", [0, len(self._flat) - 1])
        """The first block this process has not claimed, and the last the helper has not."""
        self._conn, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_draw_from_the_end, args=(self._flat, self._lock, self._ends, sending), daemon=True
        )
        self._process.start()
        sending.close()

    def pools(self, index: int) -> dict[str, np.ndarray]:
        """The Faker pools of the `index`-th table; call in table order."""
        first, last = self._starts[index], self._starts[index + 1]
        return assemble_pools(self._blocks[index], [self._block(i) for i in range(first, last)])

    def _block(self, i: int) -> np.ndarray:
        """Block `i`: drawn here if the helper has not claimed it, else waited for."""
        with self._lock:
            mine = i <= self._ends[1]
            if mine:
                self._ends[0] = max(self._ends[0], i + 1)
        if mine:
            return faker_block(self._flat[i])
        while i not in self._received:
            try:
                if self._conn.poll(0.5):
                    number, drawn = self._conn.recv()
                    self._received[number] = drawn
                elif not self._process.is_alive() and not self._conn.poll(0):
                    raise EOFError
            except (EOFError, OSError):
                self._process.join(timeout=10)
                raise BiarenaError(f"the Faker pool process ended (exit code {self._process.exitcode})") from None
        drawn = self._received.pop(i)
        if isinstance(drawn, BaseException):
            raise drawn
        return drawn

    def close(self) -> None:
        """Stop the helper (it has ended by itself once every table's pools were taken) and let its pipe go."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        with contextlib.suppress(OSError):
            self._conn.close()
