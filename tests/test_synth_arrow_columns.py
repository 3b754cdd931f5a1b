"""The generator's columns laid out as Arrow arrays by hand equal what pyarrow.array makes of them, nulls, NaN and
non-ASCII text included, and a partitioned Parquet run never imports pandas."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biarena.synth.arrow_columns import arrow_column, arrow_table

SRC = Path(__file__).resolve().parents[1] / "src"


def _objects(*values: object) -> np.ndarray:
    return np.array(list(values), dtype=object)


@pytest.mark.parametrize(
    ("values", "kind", "expected"),
    [
        (np.array([3, -1, 0, 2**62], dtype=np.int64), "int", pa.array([3, -1, 0, 2**62], pa.int64())),
        (_objects(7, None, -2), "int", pa.array([7, None, -2], pa.int64())),
        (_objects(None, None), "int", pa.array([None, None], pa.int64())),
        (np.array([1.5, math.nan, -0.0]), "float", pa.array([1.5, math.nan, -0.0], pa.float64())),
        (_objects(2.5, None), "float", pa.array([2.5, None], pa.float64())),
        (
            _objects("Zoë", "", None, "東京 ✓", "a" * 300, 42),
            "text",
            pa.array(["Zoë", "", None, "東京 ✓", "a" * 300, "42"], pa.string()),
        ),
        (np.array(["x", "yz"]), "text", pa.array(["x", "yz"], pa.string())),
        (
            np.array([0, 1_700_000_000], dtype=np.int64),
            "timestamp",
            pa.array([0, 1_700_000_000_000_000], pa.timestamp("us")),
        ),
        (_objects(None, 86_399), "timestamp", pa.array([None, 86_399_000_000], pa.timestamp("us"))),
        (np.array([0, 19_700], dtype=np.int64), "date", pa.array([0, 19_700], pa.int32()).cast(pa.date32())),
        (_objects(19_000, None), "date", pa.array([19_000, None], pa.int32()).cast(pa.date32())),
        (np.array([], dtype=object), "text", pa.array([], pa.string())),
        (np.array([], dtype=object), "date", pa.array([], pa.date32())),
    ],
)
def test_a_column_equals_what_pyarrow_array_makes_of_it(values: np.ndarray, kind: str, expected: pa.Array) -> None:
    made = arrow_column(values, kind)
    made.validate(full=True)
    assert made.type == expected.type
    assert made.null_count == expected.null_count
    assert made.is_null().to_pylist() == expected.is_null().to_pylist()  # NaN is a value, as pyarrow.array keeps it
    assert [repr(v) for v in made.to_pylist()] == [repr(v) for v in expected.to_pylist()]


def test_a_chunk_of_every_kind_writes_the_same_parquet_bytes(tmp_path: Path) -> None:
    rows = 1_000
    rng = np.random.default_rng(3)
    data = {
        "id": np.arange(rows, dtype=np.int64),
        "parent": np.array([None if i % 7 == 0 else int(i) for i in range(rows)], dtype=object),
        "amount": rng.normal(size=rows),
        "name": np.array([None if i % 11 == 0 else f"naïve {i} 東" for i in range(rows)], dtype=object),
        "at": rng.integers(0, 2_000_000_000, size=rows),
        "day": np.array([None if i % 5 == 0 else 19_000 + i for i in range(rows)], dtype=object),
    }
    types = {"id": "int", "parent": "int", "amount": "float", "name": "text", "at": "timestamp", "day": "date"}
    reference = pa.table(
        {
            "id": pa.array(data["id"], pa.int64()),
            "parent": pa.array(data["parent"].tolist(), pa.int64()),
            "amount": pa.array(data["amount"], pa.float64()),
            "name": pa.array(data["name"].tolist(), pa.string()),
            "at": pa.array(data["at"] * 1_000_000, pa.timestamp("us")),
            "day": pa.array(data["day"].tolist(), pa.int32()).cast(pa.date32()),
        }
    )
    pq.write_table(arrow_table(types, data), tmp_path / "made.parquet")
    pq.write_table(reference, tmp_path / "reference.parquet")
    assert (tmp_path / "made.parquet").read_bytes() == (tmp_path / "reference.parquet").read_bytes()


def test_a_partitioned_parquet_run_imports_no_pandas(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from biarena.synth import generate, vertical_spec\n"
        "if __name__ == '__main__':\n"
        "    generate(vertical_spec('food_delivery'), Path(sys.argv[1]), scale=0.05, seed=1, partitions=2,\n"
        "             workers=1, engine='local', chunk=2_000)\n"
        "    print('pandas' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    assert sorted(p.name for p in (tmp_path / "out" / "orders").glob("*.parquet"))
