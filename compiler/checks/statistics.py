"""Spread and order statistics over a list of floats, for the check language and anomaly checks.

Callers pass the values with nulls already left out. Variance and standard deviation are the
*sample* ones (divided by n - 1), as Deequ's BatchNormal and pandas compute them, so fewer than two values have
none (None). Any NaN makes the result NaN (NaN is a value, not a missing one, in gryph); an
infinity makes a spread NaN, as IEEE arithmetic does.
"""

from __future__ import annotations

import math
import statistics


def _has_nan(values: list[float]) -> bool:
    return any(math.isnan(v) for v in values)


def sample_variance(values: list[float]) -> float | None:
    """The sample variance (n - 1), exactly rounded; None for fewer than two values."""
    if len(values) < 2:
        return None
    if not all(math.isfinite(v) for v in values):
        return math.nan
    return float(statistics.variance(values))


def sample_stddev(values: list[float]) -> float | None:
    variance = sample_variance(values)
    return None if variance is None else math.sqrt(variance)


def population_stddev(values: list[float]) -> float:
    """The population standard deviation (divided by n), as Deequ's OnlineNormal computes it; 0 of
    one value. ``values`` is not empty."""
    if not all(math.isfinite(v) for v in values):
        return math.nan
    return math.sqrt(float(statistics.pvariance(values)))


def quantile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0 <= q <= 1) by linear interpolation between the closest ranks (numpy's
    and pandas' default); None of no values."""
    if not values:
        return None
    if _has_nan(values):
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    if fraction == 0 or ordered[low] == ordered[high]:  # no infinity minus infinity
        return ordered[low]
    return ordered[low] + fraction * (ordered[high] - ordered[low])


def median(values: list[float]) -> float | None:
    return quantile(values, 0.5)


def median_absolute_deviation(values: list[float]) -> float | None:
    """The median of the distances from the median, unscaled (multiply by 1.4826 for a normal
    distribution's standard deviation); None of no values."""
    centre = median(values)
    if centre is None or math.isnan(centre):
        return centre
    return median([abs(v - centre) for v in values])
