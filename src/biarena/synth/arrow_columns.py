"""arrow_column, arrow_table: the generator's numpy columns as Arrow arrays, built from their buffers.

`pyarrow.array` imports pandas on its first call, whatever it converts (to recognise pandas inputs): a fifth of a
second in every process that writes Parquet or DuckDB, and in each worker of a partitioned run. The generator's
columns are plain: int64 and float64 arrays, or object arrays holding None, and text as object arrays of str. Each
is laid out here as Arrow lays it out (a validity bitmap, values; offsets and UTF-8 bytes for text) and wrapped with
`Array.from_buffers`, giving the arrays `pyarrow.array` gives (the same Parquet bytes) without pandas.
"""

from typing import Any

import numpy as np

_INT32_MAX = 2**31 - 1
"""The most bytes an Arrow string array's 32-bit offsets address."""


def _validity(missing: np.ndarray) -> tuple[Any, int]:
    """The validity bitmap of a column whose nulls are `missing` (None when it has none), and its null count."""
    import pyarrow as pa

    nulls = int(missing.sum())
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(~missing, bitorder="little")), nulls


def _fixed(values: np.ndarray, dtype: type, arrow_type: Any, scale: int = 1) -> Any:
    """A fixed-width column: numbers, or days and seconds; None in an object array is a null."""
    import pyarrow as pa

    if values.dtype == object:
        items = values.tolist()
        missing = np.fromiter((v is None for v in items), dtype=bool, count=len(items))
        filled = np.array([0 if v is None else v for v in items], dtype=dtype)
    else:
        missing, filled = np.zeros(len(values), dtype=bool), values.astype(dtype, copy=False)
    if scale != 1:
        filled = filled * scale
    bitmap, nulls = _validity(missing)
    data = pa.py_buffer(np.ascontiguousarray(filled))
    return pa.Array.from_buffers(arrow_type, len(filled), [bitmap, data], null_count=nulls)


def _text(values: np.ndarray) -> Any:
    """A text column: str (anything else written as its str) or None."""
    import pyarrow as pa

    items = values.tolist()
    encoded = [b"" if v is None else str(v).encode() for v in items]
    missing = np.fromiter((v is None for v in items), dtype=bool, count=len(items))
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(items)), out=offsets[1:])
    if offsets[-1] > _INT32_MAX:  # past what 32-bit offsets address: Arrow's own conversion says so
        return pa.array([None if v is None else str(v) for v in items], pa.string())
    bitmap, nulls = _validity(missing)
    buffers = [bitmap, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(items), buffers, null_count=nulls)


def arrow_column(values: np.ndarray, kind: str) -> Any:
    """The Arrow array of one generated column of `kind` (int, float, text, timestamp in seconds, date in days)."""
    import pyarrow as pa

    if kind == "text":
        return _text(values)
    if kind == "timestamp":
        return _fixed(values, np.int64, pa.timestamp("us"), 1_000_000)
    if kind == "date":
        return _fixed(values, np.int32, pa.date32())
    if kind == "int":
        return _fixed(values, np.int64, pa.int64())
    if kind == "float":
        return _fixed(values, np.float64, pa.float64())
    raise ValueError(f"unknown column kind: {kind}")


def arrow_table(types: dict[str, str], data: dict[str, np.ndarray]) -> Any:
    """The Arrow table of one chunk: `types` maps each column to its kind, `data` holds its values."""
    import pyarrow as pa

    return pa.table({name: arrow_column(data[name], kind) for name, kind in types.items()})
