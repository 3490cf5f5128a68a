"""Anomaly checks: today's value of a measure or rule metric against bounds learnt from earlier runs.

The strategies are Deequ's: ``normal`` is BatchNormal (mean ± k sample σ of a training window of
earlier runs), ``online_normal`` is OnlineNormal (mean ± k population σ of every earlier run and
today's value together, no window), ``absolute_change`` and ``relative_change`` are AbsoluteChange and RelativeRateOfChange (with
their ``order``), and ``seasonal`` compares with the run one period back (the same weekday last
week for ``"7d"``); ``holt_winters`` forecasts with additive Holt-Winters (holt_winters.py). Every strategy is turned into bounds on the value itself, so a report shows the
range the value had to fall in. Too few earlier runs is a SKIP ("not enough history"), never a
failure or an error.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass

from .check_functions import HISTORY_LIMIT, BaselineQuery, CheckError, Clock, Point, is_number, period_back, type_name
from .holt_winters import HoltWinters, holt_winters_bounds
from .statistics import population_stddev, sample_stddev

DIRECTIONS = ("up", "down", "both")


@dataclass(frozen=True, slots=True)
class Normal:
    """Mean ± ``k`` sample standard deviations of the newest ``window`` baseline runs."""

    k: float
    window: int


@dataclass(frozen=True, slots=True)
class OnlineNormal:
    """Mean ± ``k`` population standard deviations of every baseline run and today's value
    together (Deequ's OnlineNormalStrategy: today's value moves its own bounds)."""

    k: float


@dataclass(frozen=True, slots=True)
class AbsoluteChange:
    """The ``order``-th difference (order 1: today minus the last run) within
    [-max_decrease, max_increase]; None: unbounded on that side."""

    max_increase: float | None
    max_decrease: float | None
    order: int


@dataclass(frozen=True, slots=True)
class RelativeChange:
    """The change from the value ``order`` runs back, as a fraction of that value's size, within
    [-max_decrease, max_increase]."""

    max_increase: float | None
    max_decrease: float | None
    order: int


@dataclass(frozen=True, slots=True)
class Seasonal:
    """Relative change from the run one ``period_ms`` back (give or take a tenth of the period, for
    runs that start a little late or early; none there: not evaluated)."""

    period_ms: int
    max_increase: float | None
    max_decrease: float | None


Strategy = Normal | OnlineNormal | AbsoluteChange | RelativeChange | Seasonal | HoltWinters


@dataclass(frozen=True, slots=True)
class MinChange:
    """The smallest change from the expected value that can be an anomaly (``min_change = 5``: in
    the value's units; ``min_change = "1%"``: a fraction of the expected value's size), so an
    exact or constant series does not fail on any change (Elementary's ``ignore_small_changes``)."""

    amount: float
    relative: bool

    def band(self, expected: float) -> float:
        return self.amount * abs(expected) if self.relative else self.amount


def runs_needed(strategy: Strategy) -> int:
    """The fewest baseline runs the strategy can compute bounds from."""
    if isinstance(strategy, Normal):
        return 2  # a sample standard deviation needs two values
    if isinstance(strategy, HoltWinters):
        return 2 * strategy.seasonal_periods  # two seasons to start the level, trend and season from
    if isinstance(strategy, (Seasonal, OnlineNormal)):
        return 1
    return strategy.order


@dataclass(frozen=True, slots=True)
class Anomaly:
    """``anomaly(subject, strategy, direction = ..., min_history = ...)``: a whole check."""

    subject: object  # the reference read now (measures[...] or metrics[...], traced)
    query: BaselineQuery  # its earlier values
    path: tuple[str | int, ...]  # the subject's subscripts below what the history stores
    strategy: Strategy
    direction: str  # up, down or both: which side is an anomaly
    min_history: int  # baseline runs needed before the check judges (at least the strategy's need)
    min_change: MinChange | None = None  # bounds never closer to the expected value than this


@dataclass(frozen=True)
class Finding:
    """An anomaly check's result: ``anomaly`` None when there was not enough history (``unjudged``
    says how much there was); ``shown`` holds the bounds and baseline, shown beside the values the
    check read."""

    anomaly: bool | None
    shown: dict[str, object]
    unjudged: str | None = None


def judge_anomaly(check: Anomaly, value: object, clock: Clock) -> Finding:
    """Whether ``value`` (the subject read now) is an anomaly against the check's baseline."""
    if value is None:
        raise CheckError("anomaly() read null: there is no value to compare")
    if not is_number(value):
        raise CheckError(f"anomaly() watches a number, got {type_name(value)}")
    strategy = check.strategy
    history = _history(check, clock)
    needed = max(check.min_history, runs_needed(strategy))
    if len(history) < needed:
        return Finding(None, {"baseline runs": len(history)}, _unjudged(check, clock, len(history), needed))
    lower: float | None
    upper: float | None
    if isinstance(strategy, HoltWinters):
        lower, upper, shown = holt_winters_bounds(strategy, history, clock.started)
        expected = float(shown["forecast"])  # type: ignore[arg-type]
    else:
        lower, upper, expected, shown = _bounds(strategy, [_number(point) for point in history], float(value))  # type: ignore[arg-type]
    if check.min_change is not None:
        band = check.min_change.band(expected)
        lower = None if lower is None else min(lower, expected - band)
        upper = None if upper is None else max(upper, expected + band)
        shown = {**shown, "min change": band}
    if check.direction == "up":
        lower = None
    elif check.direction == "down":
        upper = None
    number = float(value)  # type: ignore[arg-type]
    # written so that a NaN value is outside any bound
    anomalous = (lower is not None and not number >= lower) or (upper is not None and not number <= upper)
    bounds = {"lower bound": lower, "upper bound": upper}
    return Finding(
        anomalous,
        {**{k: v for k, v in bounds.items() if v is not None}, "baseline runs": len(history), **shown},
    )


def _unjudged(check: Anomaly, clock: Clock, runs: int, needed: int) -> str:
    """Why the check could not judge: too few earlier runs, or for ``seasonal`` no run one period
    back (the window it looked in named, so a missing day last week is seen as the cause)."""
    if isinstance(check.strategy, Seasonal) and runs == 0:
        since, until = period_back(clock.started, dt.timedelta(milliseconds=check.strategy.period_ms))
        return f"no run one period back: seasonal() found none from {since:%Y-%m-%d %H:%M} to {until:%Y-%m-%d %H:%M}"
    return f"not enough history: {runs} earlier runs, {needed} needed"


def _history(check: Anomaly, clock: Clock) -> list[Point]:
    """The baseline's runs, newest first, each with the subject's value: runs whose value is null,
    NaN or not a number are skipped."""
    strategy = check.strategy
    query, limit = check.query, runs_needed(strategy)
    if isinstance(strategy, (Normal, HoltWinters)):
        limit = strategy.window
    elif isinstance(strategy, OnlineNormal):
        limit = HISTORY_LIMIT
    elif isinstance(strategy, Seasonal):
        since, until = period_back(clock.started, dt.timedelta(milliseconds=strategy.period_ms))
        query = dataclasses.replace(query, since=since, until=until)
    points = [
        Point(_at(point, check.path), point.started) for point in clock.history.baseline(clock.suite, query, limit)
    ]
    return [point for point in points if is_number(point.value) and math.isfinite(point.value)]  # type: ignore[arg-type]


def _number(point: Point) -> float:
    return float(point.value)  # type: ignore[arg-type]


def _at(point: Point, path: tuple[str | int, ...]) -> object:
    """The subject's value in one earlier run (a row is stored as a map or a list); null where that
    run had no such key."""
    value = point.value
    for key in path:
        if isinstance(value, dict):
            value = value.get(key) if isinstance(key, str) else _nth(list(value.values()), key)
        elif isinstance(value, list) and isinstance(key, int):
            value = _nth(value, key)
        else:
            return None
    return value


def _nth(items: list[object], index: int) -> object:
    return items[index] if -len(items) <= index < len(items) else None


def _bounds(
    strategy: Normal | OnlineNormal | AbsoluteChange | RelativeChange | Seasonal, history: list[float], today: float
) -> tuple[float | None, float | None, float, dict[str, object]]:
    """The lower and upper bound on today's value, the value expected (no change), and what they
    were computed from."""
    if isinstance(strategy, OnlineNormal):
        return _online_normal(strategy.k, [*history, today])
    if isinstance(strategy, Normal):
        mean = math.fsum(history) / len(history)
        spread = sample_stddev(history)
        assert spread is not None  # two values or more
        margin = strategy.k * spread
        return mean - margin, mean + margin, mean, {"baseline mean": mean, "baseline stddev": spread}
    if isinstance(strategy, AbsoluteChange):
        # the order-th difference is today's value plus a sum of earlier ones: bound today's value
        rest = math.fsum(
            (-1) ** j * math.comb(strategy.order, j) * history[j - 1] for j in range(1, strategy.order + 1)
        )
        return (
            None if strategy.max_decrease is None else -rest - strategy.max_decrease,
            None if strategy.max_increase is None else -rest + strategy.max_increase,
            -rest,
            {},
        )
    base = history[strategy.order - 1] if isinstance(strategy, RelativeChange) else history[0]
    size = abs(base)
    return (
        None if strategy.max_decrease is None else base - strategy.max_decrease * size,
        None if strategy.max_increase is None else base + strategy.max_increase * size,
        base,
        {"baseline value": base},
    )


def _online_normal(k: float, together: list[float]) -> tuple[float, float, float, dict[str, object]]:
    """Deequ's OnlineNormal bounds: the mean ± k population standard deviations of the baseline
    and today's value together (a NaN or infinite value makes them NaN: an anomaly)."""
    mean = math.fsum(together) / len(together)
    spread = population_stddev(together)
    return mean - k * spread, mean + k * spread, mean, {"mean with today": mean, "stddev with today": spread}
