"""The checks of planted events: each window against the weeks before it, and its cause's row present."""

from dataclasses import dataclass
from datetime import date, timedelta

from biarena.db.sql_text import Literal, Sql, compose
from biarena.synth.calendar import active_days, days, density
from biarena.synth.check import Check, day_text, scalar
from biarena.synth.reader import Output
from biarena.synth.sampling import (
    EVENT_ALPHA,
    rate_ratio_pvalue,
)
from biarena.synth.spec import Planted, Spec

BASELINE_DAYS = 84
"""The days before a planted event its window is compared with (fewer only at the start of the data): twelve weeks,
so that the baseline's own noise adds little to the window's."""


def planted_checks(conn: Output, spec: Spec) -> list[Check]:
    """Planted and propagated events against the weeks before them: an exact conditional test of the counts in the
    window and before it against the planted factor (seasonally adjusted; for a shift in mix, against the rows of
    each window), two-sided; and the cause's row present."""
    out = []
    calendar = active_days(spec.start, spec.anchor)
    weights = dict(zip(calendar, density(calendar, spec.seasonality), strict=True))
    for event in spec.planted:
        row = event.cause["row"]
        cause_where = " AND ".join(
            compose("CAST({k} AS VARCHAR) = ?" if isinstance(v, str) else "{k} = ?", k=k) for k, v in row.items()
        )
        cause_sql = compose(
            "SELECT count(*) FROM {table} WHERE {where}", table=str(event.cause["table"]), where=Sql(cause_where)
        )
        causes = scalar(conn, cause_sql, tuple(row.values()))
        lift = 1 + (event.factor - 1) * spec.slice_share(event)
        for table, sliced, factor in [(event.table, True, event.factor), *((t, False, lift) for t in event.propagate)]:
            change = _counts(conn, spec, event, table, sliced, weights)
            pvalue, unchanged = change.pvalue(factor), change.pvalue(1.0)
            out.append(
                Check(
                    "planted event" if sliced else "propagated event",
                    event.name if sliced else f"{event.name} -> {table}",
                    pvalue >= EVENT_ALPHA and causes >= 1,
                    f"{change.during} rows vs {change.baseline:.1f} expected from the {change.days} days before "
                    f"(x{change.ratio:.2f}, planted x{factor:.2f}; p = {pvalue:.2g} against the planted factor, "
                    f"{unchanged:.2g} against none); cause recorded: {bool(causes)}",
                    pvalue,
                    EVENT_ALPHA,
                )
            )
    return out


@dataclass(frozen=True)
class EventCounts:
    """An event's window against the days before it: the counts, and the exposures a rate ratio compares them by
    (seasonal weight of the days, or for a shift in mix the rows of all slices)."""

    during: int
    before: int
    exposure_during: float
    exposure_before: float
    days: int

    @property
    def baseline(self) -> float:
        """The rows the window would hold at the rate before it."""
        return self.before * self.exposure_during / self.exposure_before if self.exposure_before else 0.0

    def pvalue(self, factor: float) -> float:
        """Two-sided p-value of the counts against a planted factor (see `rate_ratio_pvalue`)."""
        return rate_ratio_pvalue(self.during, self.before, self.exposure_during, self.exposure_before, factor)

    @property
    def ratio(self) -> float:
        """Rows in the window per row expected from before it."""
        return self.during / self.baseline if self.baseline else float("inf")


def _counts(
    conn: Output, spec: Spec, event: Planted, table: str, sliced: bool, weights: dict[date, float]
) -> EventCounts:
    """The counts of an event's window and of the `BASELINE_DAYS` before it that no planted event touching the table
    covers; for a shift in mix, the slice's rows against all rows of each."""
    stamp = spec.tables[table].stamp or ""
    window = days(event.start, event.end)
    taken = {d for other, _, _ in spec.touched(table) for d in days(other.start, other.end)}
    span = max(BASELINE_DAYS, len(window))
    before = [d for d in days(event.start - timedelta(days=span), event.start - timedelta(days=1)) if d not in taken]
    before = [d for d in before if d in weights]

    def count(dates: list[date], only_slice: bool) -> int:
        if not dates:
            return 0
        where = compose("{column} = ? AND ", column=event.column) if only_slice else Sql("")
        params = (event.value,) if only_slice else ()
        sql = compose(
            "SELECT count(*) FROM {table} WHERE {where}{day} IN ({listed})",
            table=table,
            where=where,
            day=day_text(stamp),
            listed=[Literal(d.isoformat()) for d in dates],
        )
        return int(scalar(conn, sql, params))

    during, prior = count(window, sliced), count(before, sliced)
    if event.kind == "shift" and sliced:
        exposure_during, exposure_before = float(count(window, False)), float(count(before, False))
    else:
        exposure_during = sum(weights.get(d, 0.0) for d in window)
        exposure_before = sum(weights[d] for d in before)
    return EventCounts(during, prior, exposure_during, exposure_before, len(before))
