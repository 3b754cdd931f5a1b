"""grouped_bars: a small grouped bar chart as inline SVG (no script, no external files)."""

from html import escape

PALETTE = ["#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D"]


def grouped_bars(categories: list[str], series: dict[str, list[float | None]], *, title: str, height: int = 260) -> str:
    """Bars per category, one colour per series, values in 0..1."""
    names = list(series)
    group_width = max(40, 14 * len(names) + 16)
    left, bottom, top = 40, 70, 30
    # Wide enough for the title too (at most about 8 px per character in 13 px bold).
    width = max(left + group_width * len(categories) + 20, left + 8 * len(title) + 10)
    plot = height - bottom - top
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" class="chart">',
        f'<text x="{left}" y="18" class="chart-title">{escape(title)}</text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot * (1 - tick)
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick">{tick:g}</text>')
    bar = (group_width - 16) / max(1, len(names))
    for c, category in enumerate(categories):
        x0 = left + c * group_width + 8
        for s, name in enumerate(names):
            value = series[name][c]
            if value is None:
                continue
            h = plot * max(0.0, min(1.0, value))
            x = x0 + s * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{top + plot - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[s % len(PALETTE)]}"><title>{escape(name)} · {escape(category)}: '
                f"{value:.3f}</title></rect>"
            )
        cx = x0 + (group_width - 16) / 2
        parts.append(
            f'<text x="{cx:.1f}" y="{top + plot + 14}" text-anchor="end" class="tick" '
            f'transform="rotate(-35 {cx:.1f} {top + plot + 14})">{escape(category)}</text>'
        )
    parts.append("</svg>")
    legend = "".join(
        f'<span class="key"><i style="background:{PALETTE[i % len(PALETTE)]}"></i>{escape(n)}</span>'
        for i, n in enumerate(names)
    )
    return f"<figure>{''.join(parts)}<figcaption>{legend}</figcaption></figure>"
