"""verify: check every rule of a vertical's spec with SQL on the generated data."""

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from biarena.synth.calendar import days, density
from biarena.synth.generator import stored_spec
from biarena.synth.spec import Spec


@dataclass(frozen=True)
class Check:
    """One verified property: what, whether it holds, and the numbers."""

    kind: str
    name: str
    ok: bool
    detail: str


def _scalar(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> float:
    return conn.execute(sql, params).fetchone()[0] or 0


def _foreign_keys(conn: sqlite3.Connection, spec: Spec) -> list[Check]:
    out = []
    for name, table in spec.tables.items():
        for column_name, column in table.columns.items():
            if column.kind != "foreign" or not column.ref:
                continue
            parent, key = column.ref.split(".")
            orphans = _scalar(
                conn,
                f'SELECT count(*) FROM "{name}" c LEFT JOIN "{parent}" p ON c."{column_name}" = '
                f'p."{key}" WHERE p."{key}" IS NULL AND c."{column_name}" IS NOT NULL',
            )
            out.append(
                Check(
                    "foreign key", f"{name}.{column_name} -> {column.ref}", orphans == 0, f"{int(orphans)} orphan rows"
                )
            )
    return out


def _segments(conn: sqlite3.Connection, spec: Spec) -> list[Check]:
    out = []
    for segment in spec.segments:
        column = spec.tables[segment.table].columns[segment.column]
        wanted = column.values if isinstance(column.values, dict) else {v: 1.0 for v in column.values or []}
        total = sum(wanted.values())
        rows = dict(conn.execute(f'SELECT "{segment.column}", count(*) FROM "{segment.table}" GROUP BY 1').fetchall())
        n = sum(rows.values()) or 1
        worst = max(abs(rows.get(k, 0) / n - w / total) for k, w in wanted.items())
        out.append(Check("segments", segment.name, worst <= 0.02, f"largest share gap {worst * 100:.2f} points"))
    return out


def _seasonality(conn: sqlite3.Connection, spec: Spec) -> list[Check]:
    calendar = days(spec.start, spec.anchor.date())
    weights = density(calendar, spec.seasonality)
    out = []
    for name, table in spec.tables.items():
        stamp = next((c for c, col in table.columns.items() if col.kind == "timestamp"), None)
        if stamp is None:
            continue
        # months a planted event touches are the event's, not the season's
        planted = {d.strftime("%Y-%m") for p in spec.planted if p.table == name for d in days(p.start, p.end)}
        actual = dict(conn.execute(f'SELECT substr("{stamp}", 1, 7), count(*) FROM "{name}" GROUP BY 1').fetchall())
        expected: dict[str, float] = {}
        for day, weight in zip(calendar, weights, strict=True):
            expected[day.strftime("%Y-%m")] = expected.get(day.strftime("%Y-%m"), 0.0) + weight
        full = [m for m in expected if m not in planted and m != calendar[-1].strftime("%Y-%m")]
        total_actual = sum(actual.get(m, 0) for m in full) or 1
        total_expected = sum(expected[m] for m in full) or 1
        worst, where_worst, ok = 0.0, "", True
        for month in full:
            share = expected[month] / total_expected
            ratio = (actual.get(month, 0) / total_actual) / share
            # 10%, plus one row of rounding for months with few rows (small scales)
            allowed = 0.10 + 1.0 / max(1.0, share * total_actual)
            ok = ok and abs(ratio - 1) <= allowed
            if abs(ratio - 1) > worst:
                worst, where_worst = abs(ratio - 1), month
        out.append(
            Check(
                "seasonality",
                f"{name}.{stamp}",
                ok,
                f"largest monthly deviation {worst * 100:.1f}% ({where_worst or 'n/a'})",
            )
        )
    return out


def _rules(conn: sqlite3.Connection, spec: Spec) -> list[Check]:
    out = []
    for rule in spec.rules:
        try:
            broken = _scalar(
                conn,
                f'SELECT count(*) FROM "{rule.table}" WHERE NOT ("{rule.column}" IS '
                f"CASE WHEN ({rule.when}) THEN ? ELSE ? END)",
                (rule.then, rule.otherwise),
            )
            out.append(Check("rule", rule.name, broken == 0, f"{int(broken)} rows break it"))
        except sqlite3.Error as error:
            out.append(Check("rule", rule.name, False, f"cannot be checked: {error}"))
    return out


def _planted(conn: sqlite3.Connection, spec: Spec) -> list[Check]:
    out = []
    calendar = days(spec.start, spec.anchor.date())
    weights = dict(zip(calendar, density(calendar, spec.seasonality), strict=True))
    for event in spec.planted:
        stamp = next(c for c, col in spec.tables[event.table].columns.items() if col.kind == "timestamp")
        length = (event.end - event.start).days + 1
        before_start = event.start - timedelta(days=length)
        window = [event.start + timedelta(days=i) for i in range(length)]
        before = [before_start + timedelta(days=i) for i in range(length)]

        def count(first: datetime, last: datetime, stamp: str = stamp, event=event) -> float:
            return _scalar(
                conn,
                f'SELECT count(*) FROM "{event.table}" WHERE "{event.column}" = ? AND date("{stamp}") BETWEEN ? AND ?',
                (event.value, first.isoformat(), last.isoformat()),
            )

        during, prior = count(window[0], window[-1]), count(before[0], before[-1])
        seasonal = sum(weights.get(d, 0) for d in window) / max(1e-9, sum(weights.get(d, 0) for d in before))
        expected = seasonal * event.factor
        ratio = during / prior if prior else float("inf")
        cause_where = " AND ".join(f'"{k}" = ?' for k in event.cause["row"])
        causes = _scalar(
            conn,
            f'SELECT count(*) FROM "{event.cause["table"]}" WHERE {cause_where}',
            tuple(event.cause["row"].values()),
        )
        # the change must stand out from the season (at least half of it) and match it within sampling noise
        if event.factor >= 1:
            stands_out = ratio >= seasonal * (1 + (event.factor - 1) / 2)
        else:
            stands_out = ratio <= seasonal * (1 - (1 - event.factor) / 2)
        noise = 0.3 + 2 / max(1.0, prior) ** 0.5
        visible = prior > 0 and stands_out and abs(ratio / expected - 1) <= noise and causes >= 1
        out.append(
            Check(
                "planted event",
                event.name,
                visible,
                f"{int(during)} rows vs {int(prior)} before (x{ratio:.2f}, expected x{expected:.2f}); "
                f"cause recorded: {bool(causes)}",
            )
        )
    return out


def verify(path: str | Path) -> list[Check]:
    """Check foreign keys, segment shares, seasonal multipliers, operation rules and planted events."""
    database = Path(path)
    spec, _ = stored_spec(database)
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return [
            *_foreign_keys(conn, spec),
            *_segments(conn, spec),
            *_seasonality(conn, spec),
            *_rules(conn, spec),
            *_planted(conn, spec),
        ]
    finally:
        conn.close()
