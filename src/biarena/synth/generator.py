"""generate: write a vertical's database from its spec, vectorized, streamed in chunks, deterministic for a seed.

Each table is generated in chunks of about `chunk` rows (cut at day boundaries for tables with a timestamp, so
rows stay in time order), drawn by the kernel (`biarena.synth.kernel`). Only the columns other tables refer to stay
in memory; everything else is written and dropped. With `partitions`, the partition writer
(`biarena.synth.partitions`) draws the same chunks in parallel.
"""

import multiprocessing
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from biarena.db.dialect import dialect_of, file_engines
from biarena.errors import UsageError
from biarena.synth.calendar import active_days
from biarena.synth.kernel import (
    Calendar,
    cause_rows,
    draw_chunk,
    finish_chunk,
    pool_blocks,
    table_def,
    table_rows,
    table_state,
)
from biarena.synth.partitions import write_partitions
from biarena.synth.pool_process import PoolProcess
from biarena.synth.reader import open_output, output_format
from biarena.synth.schema import Columns, retained_columns, table_order
from biarena.synth.spec import Spec
from biarena.synth.writer_process import WriterProcess
from biarena.synth.writers import FORMATS, open_writer, write_meta
from biarena.yaml_load import load_yaml

WRITER_PROCESS_ROWS = 300_000
"""The size (rows, as `expected_rows` reckons) from which a SQLite output is written by a process of its own: below
it, starting the process costs more than the overlap saves."""

_SPEC_DUMPER: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's emitter where PyYAML has it (its wheels do): four times faster than the pure-Python one, and the same text
for every built-in vertical (a spec is written into every output's metadata before the first row is drawn)."""

MAX_TABLE_ROWS = 999_999_999
"""The most rows one table may have: a table's exact shares are split among its chunks by numpy's multivariate
hypergeometric draw, which takes fewer than 10**9 items."""


def _write_tables(
    spec: Spec, writer, scale: float, seed: int, chunk: int, pools: PoolProcess | None = None
) -> dict[str, int]:
    retained = retained_columns(spec)
    kept: dict[str, Columns] = {}
    calendar = Calendar.of(spec)
    counts: dict[str, int] = {}
    for index, name in enumerate(table_order(spec)):
        state = table_state(spec, index, name, scale, seed, kept, calendar)
        if pools is not None:
            state.pools = pools.pools(index)
        writer.create(table_def(state))
        parts: dict[str, list[np.ndarray]] = {c: [] for c in retained[name]}
        written = 0
        for number, (start, size, day_counts) in enumerate(state.plan(chunk)):
            data, rows = draw_chunk(state, number, start, size, day_counts)
            data = finish_chunk(state, data, rows, written + 1)
            writer.append(name, data)
            written += rows
            for column_name in parts:
                parts[column_name].append(data[column_name])
        causes = cause_rows(state, written + 1)
        if causes is not None:
            writer.append(name, causes)
            written += len(next(iter(causes.values())))
        kept[name] = {c: np.concatenate(v) for c, v in parts.items()}
        counts[name] = written
    return counts


def _pool_process(spec: Spec, scale: float, seed: int) -> PoolProcess | None:
    """A helper drawing the vertical's Faker pools beside this process (none if it has no pools)."""
    order = table_order(spec)
    blocks = [pool_blocks(spec, name, i, table_rows(spec, name, scale), seed) for i, name in enumerate(order)]
    return PoolProcess(blocks) if any(blocks) else None


def expected_rows(spec: Spec, scale: float) -> float:
    """About how many rows the vertical has at `scale`: each table's `rows`, times `scale` where it is scaled."""
    return sum(table.rows * (scale if table.scaled else 1.0) for table in spec.tables.values())


def infer_format(path: Path) -> str:
    """The output format a path suggests: .duckdb/.ddb, .parquet or a directory, else SQLite."""
    claimed = (name for name in file_engines() if name in FORMATS and path.suffix in dialect_of(name).file_suffixes)
    if (engine := next(claimed, "sqlite")) != "sqlite":
        return engine
    if path.suffix == ".parquet" or path.is_dir():
        return "parquet"
    return "sqlite"


def _replaceable(path: Path) -> None:
    """Refuse to overwrite anything but an earlier output of synth."""
    if not path.exists() and not path.is_symlink():
        return
    try:
        output_format(path)
        with open_output(path):
            return
    except Exception:  # anything unreadable is not ours to replace
        raise UsageError(
            f"{path} exists and is not a database biarena synth wrote; remove it or pick another path"
        ) from None


def check_partitions(spec: Spec, fmt: str, partitions: int) -> None:
    """Refuse a partition count the vertical cannot be cut into (one line, a UsageError)."""
    if fmt != "parquet":
        raise UsageError(f"--partitions needs --format parquet (not {fmt})")
    if partitions < 1:
        raise UsageError(f"--partitions must be at least 1 (got {partitions})")
    days = len(active_days(spec.start, spec.anchor))
    if partitions > days:
        raise UsageError(f"--partitions {partitions} is more than the {days} days '{spec.name}' spans")


def generate(
    spec: Spec,
    path: str | Path,
    *,
    scale: float = 1.0,
    seed: int = 0,
    fmt: str | None = None,
    chunk: int = 100_000,
    partitions: int | None = None,
    workers: int = 1,
    engine: str = "local",
    address: str | None = None,
    writer_process: bool | None = None,
    pool_process: bool | None = None,
) -> dict[str, int]:
    """Write the vertical's database (SQLite, DuckDB or Parquet directory); return rows per table.

    The output appears at `path` only when complete (an earlier output there is replaced; anything else there is
    left alone with a UsageError). Rules are applied; run `verify` to check them on the data. With `partitions`,
    a Parquet directory of day-range parts per table, drawn by `workers` processes (or Ray tasks with `engine`
    "ray"); see `biarena.synth.partitions`. A SQLite output of at least `WRITER_PROCESS_ROWS` rows (or any, with
    `writer_process`) is written by a process of its own while the chunks are drawn (`WriterProcess`). An output of
    that size in any format (or any, with `pool_process`) has its Faker pools drawn by this process and a helper
    process at once (`PoolProcess`). The file is the same either way.
    """
    target = Path(path)
    fmt = fmt or ("parquet" if partitions is not None else infer_format(target))
    _check_request(spec, fmt, scale, seed, partitions)
    partial = _partial_path(target)
    meta = {
        "spec": yaml.dump(_spec_record(spec), Dumper=_SPEC_DUMPER, sort_keys=False, allow_unicode=True),
        "seed": str(seed),
        "scale": repr(scale),
    }
    if partitions is not None:
        partial.mkdir()
        try:
            counts = write_partitions(
                spec,
                partial,
                scale=scale,
                seed=seed,
                chunk=chunk,
                partitions=partitions,
                workers=workers,
                engine=engine,
                address=address,
            )
            write_meta(partial, meta | {"partitions": str(partitions)})
        except BaseException:
            _remove(partial)
            raise
    else:
        counts = _write_file(spec, fmt, partial, meta, scale, seed, chunk, writer_process, pool_process)
    _remove(target)
    partial.replace(target)
    return counts


def _check_request(spec: Spec, fmt: str, scale: float, seed: int, partitions: int | None) -> None:
    """Refuse an unknown format, a scale or seed out of range, a table too large or partitions that do not fit."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    if scale <= 0:
        raise UsageError("--scale must be positive")
    if seed < 0:
        raise UsageError(f"--seed must be 0 or more (got {seed})")
    rows, largest = max(((table_rows(spec, name, scale), name) for name in spec.tables), key=lambda item: item[0])
    if rows > MAX_TABLE_ROWS:
        raise UsageError(
            f"--scale {scale:g} gives table '{largest}' {rows:,} rows; "
            f"the simulator draws at most {MAX_TABLE_ROWS:,} rows a table"
        )
    if partitions is not None:
        check_partitions(spec, fmt, partitions)


def _partial_path(target: Path) -> Path:
    """Where the output is written until complete, beside `target`, once the target may be replaced."""
    _replaceable(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror} ({error.filename})") from None
    for stale in target.parent.glob(f".{target.name}.partial-*"):  # left by an interrupted run
        _remove(stale)
    return target.with_name(f".{target.name}.partial-{os.getpid()}")


def _write_file(
    spec: Spec,
    fmt: str,
    partial: Path,
    meta: dict[str, str],
    scale: float,
    seed: int,
    chunk: int,
    writer_process: bool | None,
    pool_process: bool | None,
) -> dict[str, int]:
    """Write the whole vertical into one output at `partial` (removed again on failure); return rows per table."""
    # a daemonic process (a multiprocessing pool's worker) may not start one of its own
    large = expected_rows(spec, scale) >= WRITER_PROCESS_ROWS and not multiprocessing.current_process().daemon
    if writer_process is None:
        writer_process = large and fmt == "sqlite"
    pools = _pool_process(spec, scale, seed) if (large if pool_process is None else pool_process) else None
    try:
        writer = WriterProcess(fmt, partial) if writer_process else open_writer(fmt, partial)
        try:
            counts = _write_tables(spec, writer, scale, seed, chunk, pools)
            writer.close(meta)
        except BaseException:
            writer.abort()
            _remove(partial)
            raise
    finally:
        if pools is not None:
            pools.close()
    return counts


def _spec_record(spec: Spec) -> dict[str, Any]:
    """The spec as stored beside the data; `empty`, `until`, `at`, `not_before` and `not_after` only where given, so
    a spec without them is stored as before."""
    record = spec.model_dump(mode="json")
    for table in record["tables"].values():
        for column in table["columns"].values():
            for field in ("empty", "until", "at", "not_before", "not_after"):
                if column.get(field) is None:
                    column.pop(field, None)
    return record


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        wal.unlink()


def stored_spec(path: str | Path) -> tuple[Spec, dict[str, Any]]:
    """The spec, seed and scale a generated database was made from."""
    with open_output(path) as output:
        meta = dict(output.query("SELECT key, value FROM _biarena_synth"))
    spec = Spec.model_validate(load_yaml(meta["spec"], f"{path}: the stored spec"))
    return spec, {"seed": int(meta["seed"]), "scale": float(meta["scale"])}
