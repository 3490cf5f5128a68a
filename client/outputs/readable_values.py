"""Numbers as a person reads them in text output: no e-notation, durations with units. JSON output
keeps the raw numbers."""

from __future__ import annotations

import math
from decimal import Decimal

# significant digits: six, as %g shows, but never fewer than a value's whole digits and two
# decimals (a sum of money keeps its cents); a double holds no more than 17
SIGNIFICANT, DECIMALS, MOST = 6, 2, 17
# beyond these, digits written out would bury the value: the exponent stays
_PLAIN_RANGE = (1e-9, 1e21)
_UNITS_MS = (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000))


def number(value: float) -> str:
    """A float in positional notation, no trailing zeros: ``2474731.52`` (not ``2.47473e+06``),
    ``0.98974``, ``93.7735``, ``100000000000000000000``; NaN and infinities as Python spells them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value) or value == 0:
        return f"{value:g}".replace("-0", "0")
    whole_digits = max(0, math.floor(math.log10(abs(value))) + 1)
    rounded = f"{value:.{min(MOST, max(SIGNIFICANT, whole_digits + DECIMALS))}g}"
    if not _PLAIN_RANGE[0] <= abs(value) < _PLAIN_RANGE[1]:
        return rounded
    text = f"{Decimal(rounded):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def counted(number: int, one: str, many: str | None = None) -> str:
    """A count with its noun, singular for one: ``1 segment``, ``2 segments``."""
    return f"{number} {one if number == 1 else (many or one + 's')}"


def duration(ms: float) -> str:
    """Milliseconds as days, hours, minutes and seconds, each unit shown only when not zero:
    ``250 ms``, ``1.5 s``, ``3 min 39.864 s``, ``2 h 5 min``; below a second, in milliseconds."""
    if not math.isfinite(ms):
        return number(float(ms))
    sign, ms = ("-" if ms < 0 else ""), abs(ms)
    if ms < 1000:
        return f"{sign}{number(float(ms))} ms"
    rest = round(ms)  # from a second up, to the millisecond
    parts = []
    for unit, size in _UNITS_MS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {unit}")
    if rest:
        parts.append(f"{number(rest / 1000)} s")
    return sign + " ".join(parts)
