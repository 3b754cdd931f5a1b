"""Typed columns of a result's rows, built a small block of rows at a time without holding every value twice."""

from collections import Counter
from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import Any

import numpy as np

from biarena.metrics.columns import _FAST_NUMERIC, Column

_TEXT = frozenset({str})
_NONE = type(None)

BLOCK = 512
"""Rows transposed at a time: a block's values stay in the CPU's cache while each is typed, converted and counted."""


class ColumnOfRows(Sequence):
    """Column `index` of `rows`, read from the rows the first time a value is asked for.

    Equal to, and hashing as, the tuple of its values, so it stands wherever a column's values as a tuple do.
    """

    __slots__ = ("_index", "_rows", "_values")

    def __init__(self, rows: Sequence[Sequence[Any]], index: int) -> None:
        self._rows = rows
        self._index = index
        self._values: tuple | None = None

    def values(self) -> tuple:
        """The column's values as a tuple (read from the rows once)."""
        if self._values is None:
            self._values = tuple(map(itemgetter(self._index), self._rows))
            self._rows = ()
        return self._values

    def __len__(self) -> int:
        return len(self._values) if self._values is not None else len(self._rows)

    def __getitem__(self, index):  # type: ignore[override]
        return self.values()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ColumnOfRows):
            other = other.values()
        return isinstance(other, tuple) and self.values() == other

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return f"ColumnOfRows({self.values()!r})"


def typed_columns(rows: Sequence[Sequence[Any]], width: int) -> list[Column]:
    """The columns of `rows` (each `width` values long), each the same as `Column.of` builds from its values.

    A large result holds its values wherever they were allocated, so every pass over them is a pass of cache
    misses. The rows are transposed a block at a time and, while a block's values are in the cache, each column's
    part is typed and converted to floats (numbers) or counted (text); nothing keeps the block's values afterwards,
    so they are released while still in the cache. A number or text column's values are read again from the rows
    only if something asks for them (comparing the columns needs only their floats or counts).
    """
    types: list[set[type]] = [set() for _ in range(width)]
    floats: list[list[np.ndarray] | None] = [[] for _ in range(width)]
    counts: list[Counter | None] = [Counter() for _ in range(width)]
    numeric_only = _FAST_NUMERIC.__ge__
    for start in range(0, len(rows), BLOCK):
        # One column's part of the block at a time, worked on while its values are still in the cache.
        j = -1
        for j, part in enumerate(zip(*rows[start : start + BLOCK], strict=True)):
            if j == width:
                break
            seen = set(map(type, part))
            kinds = types[j]
            kinds |= seen
            chunks = floats[j]
            if chunks is not None:
                if numeric_only(seen):
                    # numpy turns None into NaN; without one, fromiter converts the same way, faster
                    if _NONE in seen:
                        chunks.append(np.array(part, dtype=np.float64))
                    else:
                        chunks.append(np.fromiter(part, np.float64, len(part)))
                else:
                    floats[j] = None
            counted = counts[j]
            if counted is not None:
                if seen == _TEXT:
                    counted.update(part)
                else:
                    counts[j] = None
        if j + 1 != width:
            raise ValueError(f"rows {start + 1}-{start + BLOCK}: not {width} values each")
    columns = []
    for j, (kinds, chunks, counted) in enumerate(zip(types, floats, counts, strict=True)):
        if kinds and kinds <= _FAST_NUMERIC and kinds != {type(None)}:
            assert chunks is not None
            columns.append(Column(values=ColumnOfRows(rows, j), numeric=np.concatenate(chunks)))
        elif kinds == _TEXT:
            raw = ColumnOfRows(rows, j)
            column = Column(values=raw, others=raw)
            column.__dict__["counts"] = counted  # what the `counts` property would count
            columns.append(column)
        else:
            columns.append(Column._mixed(tuple(map(itemgetter(j), rows))))
    return columns
