"""Charts as inline SVG (no script, no external files): grouped bars with optional intervals, and interval plots."""

import math
from html import escape

PALETTE = ["#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D"]

CATEGORY_WIDTH = 28
"""The longest category name a chart writes under its bars (the full name is in its tooltip)."""
CHARACTER_WIDTH = 6.6
"""About how wide one character of an 11 px tick label is, in pixels."""

Bound = tuple[float | None, float | None] | None
"""A value's interval (low, high); None or None ends draw no whisker."""


def nice_maximum(values: list[float | None]) -> float:
    """The top of a chart's scale: 1 for shares, 5 or 10 for rating scales, else the next round number."""
    top = max((v for v in values if v is not None and math.isfinite(v)), default=1.0)
    for limit in (1.0, 5.0, 10.0):
        if top <= limit:
            return limit
    step = 10 ** math.floor(math.log10(top))
    return math.ceil(top / step) * step


def nice_ticks(start: float, end: float, count: int = 5) -> list[float]:
    """About `count` round tick values (steps of 1, 2, 2.5 or 5 times a power of ten) within [start, end]."""
    if not end > start:
        return [start]
    raw = (end - start) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(start / step - 1e-9) * step
    ticks = []
    value = first
    while value <= end + step * 1e-9:
        ticks.append(0.0 if abs(value) < step * 1e-9 else round(value, 12))
        value += step
    return ticks


def _whisker(x: float, low: float, high: float, to_y) -> str:
    y1, y2 = to_y(low), to_y(high)
    return (
        f'<path d="M{x - 3:.1f} {y1:.1f}H{x + 3:.1f}M{x:.1f} {y1:.1f}V{y2:.1f}M{x - 3:.1f} {y2:.1f}H{x + 3:.1f}" '
        f'class="whisker"/>'
    )


def grouped_bars(
    categories: list[str],
    series: dict[str, list[float | None]],
    *,
    title: str,
    height: int = 300,
    maximum: float = 1.0,
    intervals: dict[str, list[Bound]] | None = None,
    axis: str = "mean score",
) -> str:
    """Bars per category, one colour per series, values in 0..maximum, each bar with its value written above it;
    `intervals` adds a whisker per bar; `axis` titles the value (vertical) axis."""
    names = list(series)
    bar = 34.0 if len(names) <= 3 else 28.0 if len(names) <= 5 else 16.0
    group_width = max(72.0, bar * len(names) + 24)
    shown = [_clip(c, CATEGORY_WIDTH) for c in categories]
    longest = max((len(c) for c in shown), default=0)
    # Category names fit under their group flat when short; longer ones are turned and the margins grow to hold them.
    turned = longest * CHARACTER_WIDTH > group_width - 8
    reach = longest * CHARACTER_WIDTH
    left = max(66.0, reach * 0.82 - group_width / 2 + 12) if turned else 66.0
    top, bottom = 34, (int(reach * 0.58) + 28 if turned else 34)
    height = max(height, top + 160 + bottom)
    width = int(max(left + group_width * len(categories) + 20, 360, 8 * len(title) + 20))
    plot = height - bottom - top

    def to_y(value: float) -> float:
        return top + plot * (1 - max(0.0, min(1.0, value / maximum)))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" class="chart">',
        f'<text x="8" y="18" class="chart-title">{escape(title)}</text>',
    ]
    for fraction in (0, 0.25, 0.5, 0.75, 1.0):
        tick = fraction * maximum
        y = to_y(tick)
        parts.append(f'<line x1="{left:.1f}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" class="tick">{tick:g}</text>')
    middle = top + plot / 2
    parts.append(
        f'<text x="14" y="{middle:.1f}" text-anchor="middle" class="axis-title" '
        f'transform="rotate(-90 14 {middle:.1f})">{escape(axis)}</text>'
    )
    digits = 2 if maximum <= 1 else 1
    for c, category in enumerate(categories):
        x0 = left + c * group_width + (group_width - bar * len(names)) / 2
        for s, name in enumerate(names):
            value = series[name][c]
            if value is None:
                continue
            y = to_y(value)
            x = x0 + s * bar
            bound = (intervals or {}).get(name, [None] * len(categories))[c]
            note = ""
            if bound is not None and bound[0] is not None and bound[1] is not None:
                note = f" (95% interval {bound[0]:.3f}–{bound[1]:.3f})"
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 3:.1f}" height="{top + plot - y:.1f}" '
                f'fill="{PALETTE[s % len(PALETTE)]}"><title>{escape(name)} · {escape(category)}: '
                f"{value:.3f}{note}</title></rect>"
            )
            if note:
                parts.append(_whisker(x + (bar - 3) / 2, bound[0], bound[1], to_y))  # type: ignore[index]
            if bar >= 28:  # narrower bars keep their value in the tooltip only: written, it would overlap
                parts.append(
                    f'<text x="{x + (bar - 3) / 2:.1f}" y="{min(y, to_y(bound[1]) if note else y) - 4:.1f}" '  # type: ignore[index]
                    f'text-anchor="middle" class="value">{value:.{digits}f}</text>'
                )
        cx = left + c * group_width + group_width / 2
        label = f"<title>{escape(category)}</title>{escape(shown[c])}"
        if turned:
            parts.append(
                f'<text x="{cx:.1f}" y="{top + plot + 16}" text-anchor="end" class="tick" '
                f'transform="rotate(-35 {cx:.1f} {top + plot + 16})">{label}</text>'
            )
        else:
            parts.append(f'<text x="{cx:.1f}" y="{top + plot + 16}" text-anchor="middle" class="tick">{label}</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{PALETTE[i % len(PALETTE)]}"></i>{escape(n)}</span>'
        for i, n in enumerate(names)
    )
    return f"<figure>{''.join(parts)}<figcaption>{legend}</figcaption></figure>"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def interval_plot(
    rows: list[tuple[str, float, float | None, float | None]],
    *,
    title: str,
    domain: tuple[float, float] | None = None,
    reference: float | None = None,
    caption: str = "",
    colours: list[str] | None = None,
    axis: str = "estimate",
) -> str:
    """One row per item: a dot at the estimate and a line over its interval, on a shared horizontal axis.

    `rows` are (label, estimate, low, high); `reference` draws a dashed line (e.g. chance, or the mean); `axis`
    titles the horizontal axis.
    """
    label_width = max([60, *(7 * len(label) + 12 for label, *_ in rows)])
    plot_width, row_height, top, bottom = 240, 24, 30, 50
    width = max(label_width + plot_width + 30, 8 * len(title) + 20)
    height = top + row_height * max(1, len(rows)) + bottom
    points = [v for _, est, low, high in rows for v in (est, low, high) if v is not None and math.isfinite(v)]
    if domain is None:
        lo, hi = (min(points), max(points)) if points else (0.0, 1.0)
        pad = (hi - lo) * 0.08 or 0.5
        domain = (lo - pad, hi + pad)
    start, end = domain

    def to_x(value: float) -> float:
        share = (value - start) / (end - start) if end > start else 0.5
        return label_width + plot_width * max(0.0, min(1.0, share))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" class="chart">',
        f'<text x="8" y="18" class="chart-title">{escape(title)}</text>',
    ]
    axis_y = top + row_height * max(1, len(rows))
    for tick in nice_ticks(start, end):
        x = to_x(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{axis_y}" class="grid"/>')
        parts.append(f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" class="tick">{tick:g}</text>')
    parts.append(
        f'<text x="{label_width + plot_width / 2:.1f}" y="{axis_y + 32}" text-anchor="middle" '
        f'class="axis-title">{escape(axis)}</text>'
    )
    if reference is not None and start <= reference <= end:
        x = to_x(reference)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{axis_y}" class="reference"/>')
    for r, (label, estimate, low, high) in enumerate(rows):
        y = top + row_height * r + row_height / 2
        colour = (colours or PALETTE)[r % len(colours or PALETTE)]
        parts.append(
            f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">{escape(label)}</text>'
        )
        if not math.isfinite(estimate):
            continue
        note = f"{estimate:.3f}"
        if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
            note += f" (95% interval {low:.3f} to {high:.3f})"
            parts.append(
                f'<line x1="{to_x(low):.1f}" x2="{to_x(high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
        parts.append(
            f'<circle cx="{to_x(estimate):.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
            f"<title>{escape(label)}: {note}</title></circle>"
        )
    parts.append("</svg>")
    tail = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f"<figure>{''.join(parts)}{tail}</figure>"
