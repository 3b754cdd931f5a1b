"""cell_text: one result value as a person (or a model) should read it, every meaningful digit kept."""

import math
from decimal import Decimal

# Beyond these magnitudes positional notation is a wall of zeros; scientific notation reads better.
_POSITIONAL_MIN = 1e-6
_POSITIONAL_MAX = 1e16


# Arithmetic in the engine leaves noise in the last digits of a double (a sum of cents reads 782.520000000001):
# the shortest form within this relative distance of the value is what a person reads; it keeps every digit
# of the value itself up to the 14th significant one.
_NOISE = 1e-14


def number_text(value: float) -> str:
    """A float with every digit a person would read (up to 15 significant), positional when that reads well."""
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == 0:
        return "0"
    digits = f"{value:.15g}"
    for precision in range(1, 15):
        shorter = f"{value:.{precision}g}"
        if abs(float(shorter) - value) <= abs(value) * _NOISE:
            digits = shorter
            break
    if _POSITIONAL_MIN <= abs(value) < _POSITIONAL_MAX:
        return format(Decimal(digits), "f")
    return digits


def cell_text(value: object, width: int | None = None) -> str:
    """A result cell as text: NULL for None, floats without lost digits, long text cut to `width` characters."""
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return number_text(value)
    text = str(value)
    if width is not None and len(text) > width:
        return text[: width - 1] + "…"
    return text
