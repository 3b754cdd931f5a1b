"""Column normalisation and fingerprints shared by execution accuracy and result similarity."""

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from functools import cached_property
from typing import Any

import numpy as np

from biarena.scoring.tolerance import MAX_DECIMALS, Tolerance

__all__ = ["MAX_DECIMALS", "Tolerance"]  # re-exported: the comparison code's settings


def _canonical(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float | Decimal):
        return value
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


@dataclass
class Column:
    """One result column, typed as numeric or other, with cached sorted forms and fingerprints."""

    values: Sequence[Any]
    numeric: np.ndarray | None = None
    others: Sequence[Any] | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, raw: Sequence[Any]) -> "Column":
        """Build a column from raw engine values."""
        types = set(map(type, raw))
        if types and types <= _FAST_NUMERIC and types != {type(None)}:
            # numpy turns None into NaN for a float array
            return cls(values=raw, numeric=np.array(raw, dtype=np.float64))
        if types == {str}:
            return cls(values=raw, others=tuple(raw))
        return cls._mixed(raw)

    @classmethod
    def _mixed(cls, raw: Sequence[Any]) -> "Column":
        values = [_canonical(v) for v in raw]
        if values and all(v is None or _is_number(v) for v in values) and any(v is not None for v in values):
            numeric = np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
            return cls(values=values, numeric=numeric)
        return cls(values=values, others=tuple(_other_key(v) for v in values))

    def fresh(self) -> "Column":
        """The same column without anything computed from it yet."""
        return Column(values=self.values, numeric=self.numeric, others=self.others)

    @property
    def size(self) -> int:
        """Number of values."""
        return len(self.values)

    @property
    def is_numeric(self) -> bool:
        """True when every non-null value is a number."""
        return self.numeric is not None

    def decimals(self, cap: int) -> int | None:
        """Decimal places the column's non-integral values carry, up to `cap` + 1 (None when all are integral)."""
        key = f"decimals:{cap}"
        if key not in self._cache:
            self._cache[key] = _decimals(self.numeric, cap)  # type: ignore[arg-type]
        return self._cache[key]

    @cached_property
    def sorted_numeric(self) -> np.ndarray:
        """The numeric values sorted (NaN last)."""
        assert self.numeric is not None
        return np.sort(self.numeric)

    @cached_property
    def counts(self) -> Counter:
        """The non-numeric keys with their multiplicities."""
        assert self.others is not None
        return Counter(self.others)

    @cached_property
    def stats(self) -> tuple[int, float, float, float]:
        """(null count, min, max, sum) of a numeric column, for cheap candidate filtering."""
        assert self.numeric is not None
        finite = self.numeric[~np.isnan(self.numeric)]
        nulls = int(self.numeric.size - finite.size)
        if finite.size == 0:
            return nulls, 0.0, 0.0, 0.0
        return nulls, float(finite.min()), float(finite.max()), float(finite.sum())

    def bag_hash(self) -> int:
        """Order-insensitive hash of a non-numeric column."""
        if "bag" not in self._cache:
            assert self.others is not None
            counted = self.__dict__.get("counts")
            if counted is not None:  # one pass over the distinct values instead of all of them
                total = sum(hash(key) * n for key, n in counted.items())
            else:
                total = sum(map(hash, self.others))
            self._cache["bag"] = total & 0xFFFFFFFFFFFFFFFF
        return self._cache["bag"]

    def seq_hash(self) -> int:
        """Order-sensitive hash of a non-numeric column."""
        if "seq" not in self._cache:
            assert self.others is not None
            self._cache["seq"] = hash(self.others)
        return self._cache["seq"]


_FAST_NUMERIC = frozenset({int, float, type(None)})
"""The value types a column may hold and still be compared as floats."""


def _needs_more_than(values: np.ndarray, places: int) -> bool:
    return not np.allclose(np.round(values, places), values, rtol=0, atol=1e-9 * 10.0**-places)


def _decimals(numeric: np.ndarray, cap: int) -> int | None:
    finite = numeric[np.isfinite(numeric)]
    fractional = finite[finite != np.round(finite)]
    if fractional.size == 0:
        return None
    # A sample that already needs more than `cap` places settles it without a pass over every value.
    if _needs_more_than(fractional[:1000], cap):
        return cap + 1
    for places in range(0, cap + 1):
        if not _needs_more_than(fractional, places):
            return places
    return cap + 1


def _other_key(value: Any) -> Any:
    # Numbers inside a mixed column compare by value, strings by text; the tag keeps them apart.
    if value is None:
        return (0, "")
    if _is_number(value):
        return (1, round(float(value), MAX_DECIMALS))
    return (2, str(value))


def common_places(a: Column, b: Column, tolerance: Tolerance) -> int:
    """Decimal places two numeric columns are compared at."""
    places = tolerance.max_decimals
    if tolerance.rounding_aware:
        for side in (a.decimals(places), b.decimals(places)):
            if side is not None:
                places = min(places, side)
    return places


def _settled(a: Column, b: Column) -> bool | None:
    """The answer for columns of other sizes, empty ones, or numbers against text; None otherwise."""
    if a.size != b.size:
        return False
    if a.size == 0:
        return True
    if a.is_numeric != b.is_numeric:
        return False
    return None


def may_match(a: Column, b: Column, ordered: bool, tolerance: Tolerance) -> bool:
    """Cheap necessary test that two columns could hold the same values (the fingerprint check)."""
    if (settled := _settled(a, b)) is not None:
        return settled
    if not a.is_numeric:
        return (a.seq_hash() == b.seq_hash()) if ordered else (a.bag_hash() == b.bag_hash())
    na, mina, maxa, suma = a.stats
    nb, minb, maxb, sumb = b.stats
    if na != nb or abs(mina - minb) > 1 or abs(maxa - maxb) > 1:
        return False  # settled without working out the columns' decimal places
    step = 10.0 ** -common_places(a, b, tolerance)
    if abs(mina - minb) > step or abs(maxa - maxb) > step:
        return False
    return abs(suma - sumb) <= step * (a.size - na) + 1e-9 * max(abs(suma), abs(sumb), 1.0)


def rounded(values: np.ndarray, places: int) -> np.ndarray:
    """Round to `places` decimals, folding -0.0 into 0.0."""
    out = np.round(values, places)
    out[out == 0] = 0.0
    return out


def columns_equal(a: Column, b: Column, ordered: bool, tolerance: Tolerance) -> bool:
    """Exact test that two columns hold the same values (as sequences when `ordered`)."""
    if (settled := _settled(a, b)) is not None:
        return settled
    if a.is_numeric:
        places = common_places(a, b, tolerance)
        left = a.numeric if ordered else a.sorted_numeric
        right = b.numeric if ordered else b.sorted_numeric
        return bool(np.array_equal(rounded(left, places), rounded(right, places), equal_nan=True))
    if ordered:
        return a.others == b.others
    return a.counts == b.counts


def normalised_rows(columns: list[Column], places: list[int | None]) -> list[tuple]:
    """Rows rebuilt from columns, numbers rounded to each column's comparison places."""
    built = []
    for column, place in zip(columns, places, strict=True):
        if column.is_numeric:
            assert column.numeric is not None
            data = rounded(column.numeric, place if place is not None else MAX_DECIMALS)
            built.append([None if math.isnan(x) else float(x) for x in data.tolist()])
        else:
            built.append(column.others)
    return list(zip(*built, strict=True)) if built else []
