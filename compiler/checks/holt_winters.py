"""The ``holt_winters`` anomaly strategy: additive Holt-Winters (level, trend and a season of
``seasonal_periods`` runs) fitted by statsmodels on the baseline, bounds = forecast ± k·σ of the
fit's one-step residuals (Deequ's HoltWinters strategy).

statsmodels is an optional extra (``gryph[anomaly]``), imported only when a check uses the strategy.
Runs are laid on a grid one run spacing apart (the median gap between baseline runs: a day for a
daily suite), so a run the baseline leaves out (failed, or an earlier anomaly) stays a hole instead
of shifting the season; a hole is filled with the value one season before it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
import warnings
from dataclasses import dataclass
from typing import Any

from .check_functions import Point
from .statistics import sample_stddev

EXTRA = "anomaly"


@dataclass(frozen=True, slots=True)
class HoltWinters:
    """Additive Holt-Winters over the newest ``window`` baseline runs, a season of
    ``seasonal_periods`` runs; the bounds are the forecast ± ``k`` residual standard deviations."""

    seasonal_periods: int
    k: float
    window: int


class MissingExtra(Exception):
    """statsmodels is not installed: the message says which extra brings it."""


def exponential_smoothing() -> Any:
    """statsmodels' ExponentialSmoothing, imported on first use."""
    try:
        from statsmodels.tsa.holtwinters import ExponentialSmoothing
    except ImportError:
        raise MissingExtra(
            f"holt_winters() needs statsmodels, which is not installed (the gryph[{EXTRA}] extra)"
        ) from None
    return ExponentialSmoothing


def numpy() -> Any:
    """numpy, which statsmodels brings (imported with it, on first use)."""
    import numpy

    return numpy


def holt_winters_bounds(
    strategy: HoltWinters, points: list[Point], now: dt.datetime
) -> tuple[float, float, dict[str, object]]:
    """The bounds on the value of the run at ``now``, from ``points`` (newest first, finite numbers)."""
    series, ahead = _grid([(p.started, float(p.value)) for p in reversed(points)], now, strategy.seasonal_periods)  # type: ignore[arg-type]
    if len(set(series)) == 1:
        # every level, trend and season fits a constant series exactly (Deequ's fit forecasts it
        # with no residual whatever its parameters): only that value is in bounds
        return series[0], series[0], {"forecast": series[0], "residual stddev": 0.0}
    model = exponential_smoothing()(
        series,
        trend="add",
        seasonal="add",
        seasonal_periods=strategy.seasonal_periods,
        initialization_method="estimated",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' convergence notes: the residuals say how well it fit
        fit = model.fit()
    # each forecast recomputes the fit's information criteria (unused here), log(error sum): an
    # exact fit's -inf is numpy's division by zero, not the user's business
    with numpy().errstate(divide="ignore", invalid="ignore"):
        forecast = float(fit.forecast(ahead)[-1])
    spread = sample_stddev([float(r) for r in fit.resid]) or 0.0
    margin = strategy.k * spread
    return forecast - margin, forecast + margin, {"forecast": forecast, "residual stddev": spread}


def _grid(runs: list[tuple[dt.datetime, float]], now: dt.datetime, season: int) -> tuple[list[float], int]:
    """The runs (oldest first) one step apart with holes filled, and how many steps ``now`` is past
    the newest (at least one)."""
    gaps = [(b[0] - a[0]).total_seconds() for a, b in itertools.pairwise(runs)]
    step = statistics.median(gaps) if gaps else 0.0
    if step <= 0:
        return [value for _, value in runs], 1
    first = runs[0][0]
    slots: dict[int, float] = {}
    for started, value in runs:
        slots[round((started - first).total_seconds() / step)] = value  # a rerun of a slot: the newer
    series: list[float] = []
    for slot in range(max(slots) + 1):
        if slot in slots:
            series.append(slots[slot])
        else:
            series.append(series[slot - season] if slot >= season else series[-1])
    ahead = round((now - runs[-1][0]).total_seconds() / step)
    return series, max(1, ahead)
