"""held_size: the bytes one fetched value holds, whatever its type, nested values included.

The byte caps count what a result holds in Python, so a value must be sized by what it is, not by its type: a
PostgreSQL `numeric` of 131,072 digits, a range or an array of them, a DuckDB STRUCT of blobs. It imports nothing
heavy: the engine processes load it without the rest of the package.
"""

import math
import sys
from collections.abc import Mapping, Sequence, Set
from decimal import Decimal
from enum import Enum
from typing import Any

CELL_OVERHEAD = 16
"""Bytes every value counts beside its own (its text or blob length, or 8 for a number or NULL): what holding it in a
row, a list or a map costs. Without it a result of empty strings or NULLs counts nothing against the byte cap, and
100,000 rows of 2,000 empty columns fill gigabytes with references."""

_WORD = 8
"""What NULL, a boolean, a float or a 64-bit integer counts: a machine word."""

_SMALL_DECIMAL = sys.getsizeof(Decimal(0))
"""The memory of a decimal whose digits fit in the object itself (up to 76 of them): more than its text."""

_LEAVES: set[type] = set()
"""Types seen to hold nothing but themselves (a date, a time, an interval): sized by their memory alone."""


def held_size(value: Any, limit: float = math.inf) -> int:
    """Bytes `value` holds: text and blobs by length, NULL, booleans, floats and 64-bit integers 8, anything else by
    what it holds, nested values included.

    A decimal counts the larger of its text (its digits) and the memory Python gives it (104 bytes for a small one);
    a wider integer (DuckDB's HUGEINT), a date, time, interval or UUID the memory Python gives it; a list, tuple,
    set, map, struct or multirange 8, its elements, and CELL_OVERHEAD per element (two per map entry); a range or an
    object of any other type its memory and its bounds' or attributes' (CELL_OVERHEAD more each). Sizing stops once
    past `limit` (the count returned is then more than `limit`, not the whole size), so a huge value is not walked in
    full; nesting of any depth is walked without recursion.
    """
    kind = type(value)
    if kind in _LEAVES:  # the common single values first, without the walk's set-up
        return sys.getsizeof(value)
    if kind is Decimal:
        return _decimal_size(value)
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str or kind is bytes or kind is bytearray:
            total += len(item)
        elif item is None or kind is bool or kind is float:
            total += _WORD
        elif kind is int:
            total += _WORD if item.bit_length() < 64 else sys.getsizeof(item)
        elif kind is list or kind is tuple or kind is set or kind is frozenset:
            total += _WORD + CELL_OVERHEAD * len(item)
            if total <= limit:
                pending.extend(item)
        elif kind is dict:
            total += _WORD + 2 * CELL_OVERHEAD * len(item)
            if total <= limit:
                pending.extend(item.keys())
                pending.extend(item.values())
        elif kind is Decimal:
            total += _decimal_size(item)
        elif kind in _LEAVES:
            total += sys.getsizeof(item)
        else:
            total += _other_size(item, pending)
        if total > limit:
            return total
    return total


def _decimal_size(value: Decimal) -> int:
    """The larger of a decimal's memory and its text (made only for a decimal too long to fit in the object)."""
    memory = sys.getsizeof(value)
    # The text of a 131,072-digit numeric is made in a quarter of a millisecond: far less than parsing it was.
    return memory if memory <= _SMALL_DECIMAL else max(memory, len(str(value)))


def _other_size(item: Any, pending: list[Any]) -> int:
    """The size of a value of a less common type, its contents pushed onto `pending`."""
    if isinstance(item, memoryview):
        return item.nbytes
    if isinstance(item, str | bytes | bytearray):
        return len(item)
    if isinstance(item, int | float):  # a subclass (an IntEnum, a psycopg type): as its value
        return held_size(int(item) if isinstance(item, int) else float(item))
    if isinstance(item, Decimal):
        return _decimal_size(item)
    if isinstance(item, Enum | type):  # shared by every value that refers to it (a UUID's SafeUUID)
        return _WORD
    if isinstance(item, Mapping):
        pending.extend(item.keys())
        pending.extend(item.values())
        return _WORD + 2 * CELL_OVERHEAD * len(item)
    if isinstance(item, Sequence | Set):  # psycopg's Multirange, a named tuple
        pending.extend(item)
        return _WORD + CELL_OVERHEAD * len(item)
    # A range (psycopg's Range keeps its bounds in slots), a UUID (its integer), an address: the object, then what
    # its attributes hold.
    size = sys.getsizeof(item)
    attributes = _attributes(item)
    if not attributes and not hasattr(item, "__dict__"):
        _LEAVES.add(type(item))
    for attribute in attributes:
        pending.append(attribute)
        size += CELL_OVERHEAD
    return size


def _attributes(item: Any) -> list[Any]:
    """What an object holds in its slots and its `__dict__` (nothing for a type written in C, such as a date)."""
    found: list[Any] = []
    for klass in type(item).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__weakref__", "__dict__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"  # a private slot's name, as Python mangles it
            if hasattr(item, name):
                found.append(getattr(item, name))
    holder = getattr(item, "__dict__", None)
    if isinstance(holder, dict):
        found.extend(holder.values())
    return found
