"""generate: write a vertical's database from its spec, vectorized and deterministic for a seed and scale."""

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from biarena.errors import FormatError
from biarena.synth.calendar import allocate, allocate_days, days, density
from biarena.synth.spec import Column, Spec

Columns = dict[str, np.ndarray]
EPOCH = datetime(1970, 1, 1)


def _order(spec: Spec) -> list[str]:
    """Tables with parents before children."""
    deps = {
        name: {c.ref.split(".")[0] for c in t.columns.values() if c.kind == "foreign" and c.ref}
        for name, t in spec.tables.items()
    }
    done: list[str] = []
    while len(done) < len(deps):
        ready = [n for n in deps if n not in done and deps[n] <= set(done) | {n}]
        if not ready:
            raise FormatError(f"spec '{spec.name}': foreign keys form a cycle among {sorted(set(deps) - set(done))}")
        done.extend(sorted(ready))
    return done


def _category(column: Column, n: int, rng: np.random.Generator) -> np.ndarray:
    values = column.values
    if isinstance(values, dict):
        labels, shares = list(values), np.array(list(values.values()), dtype=float)
    else:
        labels, shares = list(values or []), np.ones(len(values or []))
    if not labels:
        raise FormatError("a category column needs values")
    counts = allocate(n, shares)
    numeric = all(isinstance(v, int) and not isinstance(v, bool) for v in labels)
    out = np.repeat(np.array(labels, dtype=np.int64 if numeric else object), counts)
    return rng.permutation(out)


def _timestamps(spec: Spec, n: int, rng: np.random.Generator) -> np.ndarray:
    calendar = days(spec.start, spec.anchor.date())
    counts = allocate_days(n, calendar, density(calendar, spec.seasonality))
    base = np.repeat(
        np.array([(datetime.combine(d, datetime.min.time()) - EPOCH).total_seconds() for d in calendar]), counts
    )
    seconds = base + rng.integers(0, 86_400, size=n)
    limit = (spec.anchor - EPOCH).total_seconds()
    seconds = np.minimum(seconds, limit - 1)
    return np.sort(seconds)


def _numeric(column: Column, n: int, rng: np.random.Generator, table: Columns) -> np.ndarray:
    if column.kind == "normal":
        out = rng.normal(column.mean or 0.0, column.sd or 1.0, n)
    elif column.kind == "uniform":
        out = rng.uniform(column.low or 0.0, column.high if column.high is not None else 1.0, n)
    else:  # poisson
        out = rng.poisson(column.mean or 1.0, n).astype(float)
    if column.factor:
        source = table[column.factor["column"]]
        multipliers = np.array([column.factor["values"].get(v, 1.0) for v in source], dtype=float)
        out = out * multipliers
    if column.min is not None:
        out = np.maximum(out, column.min)
    if column.round is not None:
        out = np.round(out, column.round)
        if column.round == 0:
            out = out.astype(np.int64)
    return out


def _column(
    spec: Spec, name: str, column: Column, n: int, rng: np.random.Generator, table: Columns, tables: dict[str, Columns]
) -> np.ndarray:
    kind = column.kind
    if kind == "sequence":
        return np.arange(1, n + 1, dtype=np.int64)
    if kind == "constant":
        return np.full(n, column.value, dtype=object)
    if kind == "category":
        return _category(column, n, rng)
    if kind in ("normal", "uniform", "poisson"):
        return _numeric(column, n, rng, table)
    if kind == "foreign":
        parent, key = (column.ref or ".").split(".")
        keys = tables[parent][key]
        if column.weight:
            weights = np.array([column.weight["values"].get(v, 1.0) for v in tables[parent][column.weight["column"]]])
            return keys[rng.choice(len(keys), size=n, p=weights / weights.sum())]
        return keys[rng.integers(0, len(keys), size=n)]
    if kind == "timestamp":
        return _timestamps(spec, n, rng)
    if kind == "date":
        start = column.start or spec.start
        end = column.end or spec.anchor.date()
        offsets = rng.integers(0, (end - start).days + 1, size=n)
        return np.array([(start + timedelta(days=int(o))).isoformat() for o in offsets], dtype=object)
    if kind == "faker":
        from faker import Faker

        fake = Faker("en_US")
        fake.seed_instance(int(rng.integers(0, 2**31)))
        provider = getattr(fake, column.provider or "name")
        return np.array([provider() for _ in range(n)], dtype=object)
    raise FormatError(f"column '{name}': unknown kind {kind}")


def _sql_type(values: np.ndarray) -> str:
    if values.dtype.kind in "iu":
        return "INTEGER"
    if values.dtype.kind == "f":
        return "REAL"
    return "TEXT"


def _as_sql(values: np.ndarray, is_time: bool) -> list:
    if is_time:
        return [(EPOCH + timedelta(seconds=float(s))).strftime("%Y-%m-%d %H:%M:%S") for s in values]
    return values.tolist()


def _plant(spec: Spec, tables: dict[str, Columns], time_columns: dict[str, str], rng: np.random.Generator) -> None:
    for event in spec.planted:
        data = tables[event.table]
        stamp = time_columns.get(event.table)
        if stamp is None or event.column not in data:
            raise FormatError(f"planted event '{event.name}': table {event.table} needs a timestamp and {event.column}")
        lo = (datetime.combine(event.start, datetime.min.time()) - EPOCH).total_seconds()
        hi = (datetime.combine(event.end, datetime.min.time()) + timedelta(days=1) - EPOCH).total_seconds()
        times = data[stamp]
        hit = np.flatnonzero((data[event.column] == event.value) & (times >= lo) & (times < hi))
        if event.factor >= 1:
            extra = rng.choice(hit, size=round(len(hit) * (event.factor - 1)), replace=True) if len(hit) else hit
            for name, values in data.items():
                data[name] = np.concatenate([values, values[extra]])
            if len(extra):
                data[stamp][-len(extra) :] = rng.uniform(lo, hi, size=len(extra))
            order = np.argsort(data[stamp], kind="stable")
            for name in data:
                data[name] = data[name][order]
        else:
            drop = rng.choice(hit, size=round(len(hit) * (1 - event.factor)), replace=False)
            keep = np.setdiff1d(np.arange(len(times)), drop)
            for name in data:
                data[name] = data[name][keep]
        for name, column in spec.tables[event.table].columns.items():
            if column.kind == "sequence":
                data[name] = np.arange(1, len(data[name]) + 1, dtype=np.int64)


def generate(spec: Spec, path: Path, *, scale: float = 1.0, seed: int = 0, chunk: int = 50_000) -> dict[str, int]:
    """Write the vertical's SQLite database; return rows per table. Rules are applied, not yet verified."""
    tables: dict[str, Columns] = {}
    time_columns: dict[str, str] = {}
    for index, name in enumerate(_order(spec)):
        table = spec.tables[name]
        n = max(1, round(table.rows * (scale if table.scaled else 1.0)))
        rng = np.random.default_rng([seed, index])
        data: Columns = {}
        for column_name, column in table.columns.items():
            try:
                data[column_name] = _column(spec, column_name, column, n, rng, data, tables)
            except (KeyError, ValueError) as error:
                raise FormatError(f"spec '{spec.name}' table {name} column {column_name}: {error}") from None
            if column.kind == "timestamp":
                time_columns.setdefault(name, column_name)
        tables[name] = data
    _plant(spec, tables, time_columns, np.random.default_rng([seed, 999]))
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    counts: dict[str, int] = {}
    with conn:
        for name in _order(spec):
            data, table = tables[name], spec.tables[name]
            cols = []
            for column_name, column in table.columns.items():
                kind = "TEXT" if column.kind == "timestamp" else _sql_type(data[column_name])
                pk = " PRIMARY KEY" if column_name == table.primary_key else ""
                ref = f" REFERENCES {column.ref.replace('.', '(')})" if column.kind == "foreign" and column.ref else ""
                cols.append(f'"{column_name}" {kind}{pk}{ref}')
            conn.execute(f'CREATE TABLE "{name}" ({", ".join(cols)})')
            columns = [_as_sql(data[c], spec.tables[name].columns[c].kind == "timestamp") for c in table.columns]
            rows = list(zip(*columns, strict=True))
            marks = ",".join("?" * len(columns))
            for start in range(0, len(rows), chunk):
                conn.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows[start : start + chunk])
            counts[name] = len(rows)
        for event in spec.planted:
            row = event.cause["row"]
            names = ", ".join(f'"{k}"' for k in row)
            conn.execute(
                f'INSERT INTO "{event.cause["table"]}" ({names}) VALUES ({",".join("?" * len(row))})',
                list(row.values()),
            )
        for rule in spec.rules:
            try:
                conn.execute(
                    f'UPDATE "{rule.table}" SET "{rule.column}" = CASE WHEN ({rule.when}) THEN ? ELSE ? END',
                    (rule.then, rule.otherwise),
                )
            except sqlite3.Error as error:
                raise FormatError(f"spec '{spec.name}': rule '{rule.name}' cannot be applied: {error}") from None
        conn.execute("CREATE TABLE _biarena_synth (key TEXT PRIMARY KEY, value TEXT)")
        meta = {
            "spec": yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False, allow_unicode=True),
            "seed": str(seed),
            "scale": repr(scale),
        }
        conn.executemany("INSERT INTO _biarena_synth VALUES (?, ?)", list(meta.items()))
    conn.close()
    return counts


def stored_spec(path: Path) -> tuple[Spec, dict[str, Any]]:
    """The spec, seed and scale a generated database was made from."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        meta = dict(conn.execute("SELECT key, value FROM _biarena_synth").fetchall())
        conn.close()
    except sqlite3.Error:
        raise FormatError(f"{path}: not a database generated by biarena synth") from None
    return Spec.model_validate(yaml.safe_load(meta["spec"])), {"seed": int(meta["seed"]), "scale": float(meta["scale"])}
