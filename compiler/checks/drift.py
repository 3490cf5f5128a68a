"""Drift checks: a column's distribution now against the previous run's, by PSI or Kolmogorov-Smirnov.

Each run stores a sketch of the column (``compiler/suites/drift_sketches.py``): its quantiles at
0, 5%, ..., 100% of the values that are neither NULL nor NaN. A sketch stands for the distribution
whose CDF rises linearly between consecutive quantiles (F(q_i) = i/20; a quantile repeated is a
jump there). PSI's bins are NULL, NaN and the numbers cut at the previous run's distinct quantiles, with a bin
below the lowest (values outside the previous range are a shift too); each bin's share is of all
rows: PSI = Σ (now - before) · ln(now / before), a share of 0 counted as 0.0001. KS compares the
numbers only.
KS is the largest gap between the two CDFs. No earlier run, or no rows: SKIP.
A text or boolean column's categories are compared in ``drift_categories.py``.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from ..suites.drift_frequencies import CATEGORIES
from ..suites.drift_sketches import NANS, QUANTILE_STEPS, ROWS, VALUES, quantile_name
from .check_functions import BaselineQuery, CheckError, Clock, Point, type_name
from .drift_categories import compare_categories, frequencies_of
from .psi import psi_term
from .tree_nodes import MeasureRef

NUMBER_METHODS = ("psi", "ks")
CATEGORY_METHODS = ("psi", "linf")  # a text or boolean column (drift_categories.py)
# PSI above 0.2 is the industry's "significant shift"; KS: a fifth of the values moved past each
# other; linf: a tenth of the rows changed category
DEFAULT_THRESHOLDS = {"psi": 0.2, "ks": 0.2, "linf": 0.1}


@dataclass(frozen=True, slots=True)
class Drift:
    """``drift(source.column, method = psi | ks | linf, threshold = t)``: a whole check."""

    sketch: MeasureRef  # the column's sketch measure
    query: BaselineQuery  # the previous run's sketch (every run, whatever its verdict)
    method: str
    threshold: float


@dataclass(frozen=True, slots=True)
class Sketch:
    """One run's sketch: rows, values (NaN included, NULL not), NaN values, quantiles (none when
    there is no value that is a number)."""

    rows: int
    values: int
    nans: int
    quantiles: tuple[float, ...]


@dataclass(frozen=True)
class DriftFinding:
    """``drifted`` None when there is nothing to compare (``unjudged`` says why)."""

    drifted: bool | None
    shown: dict[str, object]
    unjudged: str | None = None


def check_row(value: object) -> dict[str, Any]:
    """A sketch measure's value (a map by column, as run and as stored) as a dict."""
    names = getattr(value, "names", None)
    row = dict(zip(names, value.values, strict=True)) if names is not None else value  # type: ignore[attr-defined]
    if not isinstance(row, dict):
        raise CheckError(f"drift() reads a column's sketch, got {type_name(value)}")
    return row


def sketch_of(value: object) -> Sketch:
    """A sketch measure's value as a ``Sketch``."""
    row = check_row(value)
    quantiles = [row.get(quantile_name(step)) for step in range(QUANTILE_STEPS + 1)]
    numbers = () if any(q is None for q in quantiles) else tuple(float(q) for q in quantiles)  # type: ignore[arg-type]
    return Sketch(int(row.get(ROWS) or 0), int(row.get(VALUES) or 0), int(row.get(NANS) or 0), numbers)


def cdf(quantiles: tuple[float, ...], x: float, *, left: bool = False) -> float:
    """The sketch's CDF at ``x`` (``left``: just below ``x``)."""
    steps = len(quantiles) - 1
    i = (bisect.bisect_left if left else bisect.bisect_right)(quantiles, x) - 1  # the last quantile below (or at) x
    if i < 0:
        return 0.0
    if i >= steps:
        return 1.0
    low, high = quantiles[i], quantiles[i + 1]
    return (i + (x - low) / (high - low)) / steps


def psi(before: Sketch, now: Sketch) -> tuple[float, list[dict[str, object]]]:
    """The population stability index of ``now`` against ``before``, and each bin's shares of the
    rows: NULL, NaN, then the numbers binned at the previous run's distinct quantiles."""
    edges = sorted(set(before.quantiles or now.quantiles))
    bins: list[dict[str, object]] = [
        {"bin": "NULL", "before": _part(before, before.rows - before.values), "now": _part(now, now.rows - now.values)},
        {"bin": "NaN", "before": _part(before, before.nans), "now": _part(now, now.nans)},
    ]
    for low, high in zip([-math.inf, *edges], [*edges, math.inf], strict=True):
        # [low, high): a value at an edge is in the bin above it
        shares = [_part(s, s.values - s.nans) * _share(s.quantiles, low, high) for s in (before, now)]
        edge = {"from": None if low == -math.inf else low, "to": None if high == math.inf else high}
        bins.append({**edge, "before": shares[0], "now": shares[1]})
    index = math.fsum(psi_term(float(b["before"]), float(b["now"])) for b in bins)  # type: ignore[arg-type]
    # shares shown to four places: the index is computed from the exact ones
    return index, [{**b, "before": round(b["before"], 4), "now": round(b["now"], 4)} for b in bins]  # type: ignore[call-overload]


def _part(sketch: Sketch, count: int) -> float:
    return count / sketch.rows


def _share(quantiles: tuple[float, ...], low: float, high: float) -> float:
    """The share of a sketch's numbers in [low, high)."""
    if not quantiles:
        return 0.0
    below_high = 1.0 if high == math.inf else cdf(quantiles, high, left=True)
    below_low = 0.0 if low == -math.inf else cdf(quantiles, low, left=True)
    return below_high - below_low


def ks(before: tuple[float, ...], now: tuple[float, ...]) -> float:
    """The largest gap between the two sketches' CDFs (at a quantile of either, or just below it:
    between them both CDFs are linear)."""
    points = sorted({*before, *now})
    return max(abs(cdf(before, x, left=left) - cdf(now, x, left=left)) for x in points for left in (False, True))


def judge_drift(check: Drift, value: object, clock: Clock) -> DriftFinding:
    """Whether the column's distribution in this run (``value``: its sketch) drifted from the previous run's."""
    earlier = clock.history.baseline(clock.suite, check.query, 1)
    if isinstance(check_row(value).get(CATEGORIES), list):
        return _judge_categories(check, check_row(value), earlier)
    now = sketch_of(value)
    shown: dict[str, object] = {"method": check.method, "threshold": check.threshold, "values now": now.values}
    if not earlier:
        return DriftFinding(None, shown, "no earlier run to compare with")
    if isinstance(check_row(earlier[0].value).get(CATEGORIES), list):
        return DriftFinding(None, shown, "the previous run counted the column's categories: it was not numbers then")
    before = sketch_of(earlier[0].value)
    shown = {**shown, "previous run": earlier[0].started.isoformat(), "values before": before.values}
    for sketch, when in ((now, "this run"), (before, "the previous run")):
        if sketch.rows == 0:
            return DriftFinding(None, shown, f"{when} has no rows to compare")
        if check.method == "ks" and not sketch.quantiles:
            return DriftFinding(None, shown, f"{when} has no value that is a number to compare")
    if check.method == "psi":
        statistic, bins = psi(before, now)
        shown = {**shown, "psi": statistic, "bins": bins}
    else:
        statistic = ks(before.quantiles, now.quantiles)
        shown = {
            **shown,
            "ks": statistic,
            "quantiles before": list(before.quantiles),
            "quantiles now": list(now.quantiles),
        }
    return DriftFinding(statistic > check.threshold, shown)


def _judge_categories(check: Drift, now_row: dict[str, Any], earlier: list[Point]) -> DriftFinding:
    """A text or boolean column's drift: its categories' shares now against the previous run's."""
    now = frequencies_of(now_row)
    shown: dict[str, object] = {"method": check.method, "threshold": check.threshold, "rows now": now.rows}
    if not earlier:
        return DriftFinding(None, shown, "no earlier run to compare with")
    previous = check_row(earlier[0].value)
    if not isinstance(previous.get(CATEGORIES), list):
        return DriftFinding(None, shown, "the previous run sketched the column's numbers: it was not categories then")
    before = frequencies_of(previous)
    shown = {**shown, "previous run": earlier[0].started.isoformat(), "rows before": before.rows}
    for counts, when in ((now, "this run"), (before, "the previous run")):
        if counts.rows == 0:
            return DriftFinding(None, shown, f"{when} has no rows to compare")
    statistic, bins, appeared, vanished = compare_categories(before, now, check.method)
    shown = {**shown, check.method: statistic, "bins": bins, "appeared": appeared, "vanished": vanished}
    return DriftFinding(statistic > check.threshold, shown)
