"""Deequ's own anomaly-detection tests (awslabs/deequ, src/test/scala/com/amazon/deequ/
anomalydetection/*StrategyTest.scala) ported as conformance cases: each case's series, Deequ's
strategy and the anomalies its test asserts, and the gryph check that should find the same ones.

A Deequ strategy sees a whole series at once; gryph judges one run at a time against the runs
stored before it. So a case is run as a sequence of runs over a real history file: a value Deequ
judges (inside its search interval) is judged by the check and stored with its finding, as a run
does; a value outside the interval is stored as a plain passed run (Deequ neither flags it nor
leaves it out). BatchNormal trains on the values outside its interval, before and after: those
are the stored runs, and each value inside is judged against them alone. The series with noise are
Deequ's ``new Random(1)`` Gaussians (tests/support/java_random.py, java.util.Random's generator).

Where gryph differs on purpose, the case asserts gryph's own answer and says why; docs/monitoring.md
keeps the table of every case (tests below hold it to this file).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import math
from pathlib import Path

import pytest

from gryph.client.store.history import HistoryStore
from tests.client.test_anomaly_checks import NOW, outcome, record
from tests.support.java_random import JavaRandom

MAX = 1.7976931348623157e308  # Scala's Double.MaxValue


def _noisy(n: int) -> list[float]:
    """The Online and BatchNormal tests' series: Random(1) Gaussians, 20..30 moved by +i (even i)
    or -i (odd i)."""
    random = JavaRandom(1)
    values = [random.next_gaussian() for _ in range(n)]
    return [v + (i if i % 2 == 0 else -i) if 20 <= i <= 30 else v for i, v in enumerate(values)]


def _steps(odd: float) -> list[float]:
    """The change tests' series: 1.0, except 20..30: i for even i, ``odd`` (or -i) for odd i."""
    return [
        1.0 if i < 20 or i > 30 else float(i) if i % 2 == 0 else (odd if odd != -1 else -float(i)) for i in range(51)
    ]


@dataclasses.dataclass(frozen=True)
class Case:
    """One Deequ test as gryph runs it: ``judged`` the indices Deequ's search interval holds."""

    name: str  # Deequ's test file and test name
    series: list[float]
    deequ: str  # Deequ's strategy as its test builds it
    check: str  # the gryph check
    judged: range
    anomalies: list[int]  # what Deequ's test asserts
    batch: bool = False  # BatchNormal: train on the values outside ``judged``, judge each alone
    gryph: list[int] | None = None  # gryph's answer where it differs on purpose (declared)


def _two_weeks() -> list[float]:
    """HoltWintersTest's two weeks of daily values: a weekly shape plus Random(42) Gaussians."""
    random = JavaRandom(42)
    return [value + random.next_gaussian() for value in [1, 1, 1.2, 1.3, 1.5, 2.1, 1.9] * 2]


NOISY_51, NOISY_50 = _noisy(51), _noisy(50)
TWO_WEEKS = _two_weeks()
WITH_HEAD, WITH_ZERO, FOUR_WEEKS = [*TWO_WEEKS, TWO_WEEKS[0]], [*TWO_WEEKS, 0.0], TWO_WEEKS * 2
CONSTANT, ONE_ERROR, LINEAR = [1.0] * 21, [1.0] * 20 + [0.0], [float(t) for t in range(48)]
WEEKLY_LINEAR = [math.sin(2 * math.pi / 7 * t) + t for t in range(48)]
DAILY_WEEKLY = "HoltWinters(MetricInterval.Daily, SeriesSeasonality.Weekly)"  # a season of 7 daily runs
HOLT_WINTERS = "anomaly(n, holt_winters(k = 1.96))"  # Deequ's bound: 1.96 residual standard deviations
SIGNED, RATIOS = _steps(-1), _steps(1.0)
ORDERS = [0.0, 1.0, 3.0, 6.0, 18.0, 72.0]
EVERY_RUN = "include_failed = true, include_anomalies = true"  # Deequ's change strategies read the raw series

CASES = [
    Case(
        "OnlineNormalStrategyTest: detect all anomalies if no interval specified",
        NOISY_51,
        "OnlineNormalStrategy(Some(3.5), Some(3.5), ignoreStartPercentage = 0.2)",
        # ignoreStartPercentage 0.2 of 51 values: the first 11 (10.2 rounded up) are never anomalies
        "anomaly(n, online_normal(k = 3.5, relearn_after = 0), min_history = 11)",
        range(51),
        list(range(20, 31)),
    ),
    Case(
        "OnlineNormalStrategyTest: only detect anomalies in interval",
        NOISY_51,
        "OnlineNormalStrategy(Some(1.5), Some(1.5), ignoreStartPercentage = 0.2).detect(data, (25, 31))",
        "anomaly(n, online_normal(k = 1.5, relearn_after = 0))",
        range(25, 31),
        list(range(25, 31)),
    ),
    Case(
        "OnlineNormalStrategyTest: ignore lower factor if none is given",
        NOISY_51,
        "OnlineNormalStrategy(None, Some(1.5))",  # ignoreStartPercentage 0.1: the first 6 skipped
        "anomaly(n, online_normal(k = 1.5, relearn_after = 0), direction = up, min_history = 6)",
        range(51),
        list(range(20, 31, 2)),
    ),
    Case(
        "OnlineNormalStrategyTest: ignore upper factor if none is given",
        NOISY_51,
        "OnlineNormalStrategy(Some(1.5), None)",
        "anomaly(n, online_normal(k = 1.5, relearn_after = 0), direction = down, min_history = 6)",
        range(51),
        list(range(21, 30, 2)),
    ),
    Case(
        "OnlineNormalStrategyTest: detect no anomalies if factors are set to max value",
        NOISY_51,
        "OnlineNormalStrategy(Some(Double.MaxValue), Some(Double.MaxValue))",
        f"anomaly(n, online_normal(k = {MAX!r}), min_history = 6)",
        range(51),
        [],
    ),
    Case(
        "OnlineNormalStrategyTest: work fine with empty input",
        [],
        "OnlineNormalStrategy(Some(1.5), Some(1.5), ignoreStartPercentage = 0.2)",
        "anomaly(n, online_normal(k = 1.5))",
        range(0),
        [],
    ),
    Case(
        "BatchNormalStrategyTest: only detect anomalies in interval",
        NOISY_50,
        "BatchNormalStrategy(Some(1.0), Some(1.0)).detect(data, (25, 50))",
        "anomaly(n, normal(k = 1, window = 50))",
        range(25, 50),
        list(range(25, 31)),
        batch=True,
    ),
    Case(
        "BatchNormalStrategyTest: ignore lower factor if none is given",
        NOISY_50,
        "BatchNormalStrategy(None, Some(1.0)).detect(data, (20, 31))",
        "anomaly(n, normal(k = 1, window = 50), direction = up)",
        range(20, 31),
        list(range(20, 31, 2)),
        batch=True,
    ),
    Case(
        "BatchNormalStrategyTest: ignore upper factor if none is given",
        NOISY_50,
        "BatchNormalStrategy(Some(1.0), None).detect(data, (10, 30))",
        "anomaly(n, normal(k = 1, window = 50), direction = down)",
        range(10, 30),
        list(range(21, 30, 2)),
        batch=True,
    ),
    Case(
        "BatchNormalStrategyTest: ignore values in interval for mean/ stdDev if specified",
        [1.0, 1.0, 1.0, 1000.0, 500.0, 1.0],
        "BatchNormalStrategy(Some(3.0), Some(3.0)).detect(data, (3, 5))",
        "anomaly(n, normal(k = 3, window = 50))",
        range(3, 5),
        [3, 4],
        batch=True,
    ),
    Case(
        "BatchNormalStrategyTest: detect no anomalies if factors are set to max value",
        NOISY_50,
        "BatchNormalStrategy(Some(Double.MaxValue), Some(Double.MaxValue)).detect(data, (30, 51))",
        f"anomaly(n, normal(k = {MAX!r}, window = 50))",
        range(30, 50),
        [],
        batch=True,
    ),
    Case(
        "AbsoluteChangeStrategyTest: detect all anomalies if no interval specified",
        SIGNED,
        "AbsoluteChangeStrategy(Some(-2.0), Some(2.0))",
        f"anomaly(n, absolute_change(max_decrease = 2, max_increase = 2), {EVERY_RUN})",
        range(51),
        list(range(20, 32)),
    ),
    Case(
        "AbsoluteChangeStrategyTest: detect all anomalies, gryph's default baseline",
        SIGNED,
        "AbsoluteChangeStrategy(Some(-2.0), Some(2.0))",
        # gryph compares with the last run that was no anomaly: 31 (1.0) is level with 19 (1.0)
        "anomaly(n, absolute_change(max_decrease = 2, max_increase = 2, relearn_after = 0))",
        range(51),
        list(range(20, 32)),
        gryph=list(range(20, 31)),
    ),
    Case(
        "AbsoluteChangeStrategyTest: only detect anomalies in interval",
        SIGNED,
        "AbsoluteChangeStrategy(Some(-2.0), Some(2.0)).detect(data, (25, 50))",
        f"anomaly(n, absolute_change(max_decrease = 2, max_increase = 2), {EVERY_RUN})",
        range(25, 50),
        list(range(25, 32)),
    ),
    Case(
        "AbsoluteChangeStrategyTest: ignore min rate if none is given",
        SIGNED,
        "AbsoluteChangeStrategy(None, Some(1.0))",
        f"anomaly(n, absolute_change(max_increase = 1), {EVERY_RUN})",
        range(51),
        list(range(20, 31, 2)),
    ),
    Case(
        "AbsoluteChangeStrategyTest: ignore max rate if none is given",
        SIGNED,
        "AbsoluteChangeStrategy(Some(-1.0), None)",
        f"anomaly(n, absolute_change(max_decrease = 1), {EVERY_RUN})",
        range(51),
        list(range(21, 32, 2)),
    ),
    Case(
        "AbsoluteChangeStrategyTest: detect no anomalies if rates are set to min/ max value",
        SIGNED,
        "AbsoluteChangeStrategy(Some(Double.MinValue), Some(Double.MaxValue))",
        f"anomaly(n, absolute_change(max_decrease = {MAX!r}, max_increase = {MAX!r}), {EVERY_RUN})",
        range(51),
        [],
    ),
    Case(
        "AbsoluteChangeStrategyTest: attribute indices correctly for higher orders without search interval",
        ORDERS,
        "AbsoluteChangeStrategy(None, Some(8.0), order = 2)",
        f"anomaly(n, absolute_change(max_increase = 8, order = 2), {EVERY_RUN})",
        range(6),
        [4, 5],
    ),
    Case(
        "AbsoluteChangeStrategyTest: attribute indices correctly for higher orders with search interval",
        ORDERS,
        "AbsoluteChangeStrategy(None, Some(8.0), order = 2).detect(data, (5, 6))",
        f"anomaly(n, absolute_change(max_increase = 8, order = 2), {EVERY_RUN})",
        range(5, 6),
        [5],
    ),
    Case(
        "AbsoluteChangeStrategyTest: behave like the threshold strategy when order is 0",
        [1.0, -1.0, 4.0, -7.0],
        "AbsoluteChangeStrategy(Some(-2.0), Some(2.0))",
        f"anomaly(n, absolute_change(max_decrease = 2, max_increase = 2), {EVERY_RUN})",
        range(4),
        [2, 3],
    ),
    Case(
        "AbsoluteChangeStrategyTest: work fine with empty input",
        [],
        "AbsoluteChangeStrategy(Some(-2.0), Some(2.0))",
        "anomaly(n, absolute_change(max_decrease = 2, max_increase = 2))",
        range(0),
        [],
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: detect all anomalies if no interval specified",
        RATIOS,
        # a ratio within [0.5, 2.0] is a change within [-50%, +100%] of the value before
        "RelativeRateOfChangeStrategy(Some(0.5), Some(2.0))",
        f"anomaly(n, relative_change(max_decrease = 0.5, max_increase = 1), {EVERY_RUN})",
        range(51),
        list(range(20, 32)),
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: only detect anomalies in interval",
        RATIOS,
        "RelativeRateOfChangeStrategy(Some(0.5), Some(2.0)).detect(data, (25, 50))",
        f"anomaly(n, relative_change(max_decrease = 0.5, max_increase = 1), {EVERY_RUN})",
        range(25, 50),
        list(range(25, 32)),
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: ignore min rate if none is given",
        RATIOS,
        "RelativeRateOfChangeStrategy(None, Some(1.0))",
        f"anomaly(n, relative_change(max_increase = 0), {EVERY_RUN})",
        range(51),
        list(range(20, 31, 2)),
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: ignore max rate if none is given",
        RATIOS,
        "RelativeRateOfChangeStrategy(Some(0.5), None)",
        f"anomaly(n, relative_change(max_decrease = 0.5), {EVERY_RUN})",
        range(51),
        list(range(21, 32, 2)),
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: detect no anomalies if rates are set to min/ max value",
        RATIOS,
        "RelativeRateOfChangeStrategy(Some(Double.MinValue), Some(Double.MaxValue))",
        f"anomaly(n, relative_change(max_decrease = {MAX!r}, max_increase = {MAX!r}), {EVERY_RUN})",
        range(51),
        [],
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: attribute indices correctly for higher orders without search interval",
        ORDERS,
        # 3 / 0 is an infinite ratio to Deequ; gryph's change from 0 allows only 0
        "RelativeRateOfChangeStrategy(None, Some(8.0), order = 2)",
        f"anomaly(n, relative_change(max_increase = 7, order = 2), {EVERY_RUN})",
        range(6),
        [2, 5],
    ),
    Case(
        "RelativeRateOfChangeStrategyTest: attribute indices correctly for higher orders with search interval",
        ORDERS,
        "RelativeRateOfChangeStrategy(None, Some(8.0), order = 2).detect(data, (5, 6))",
        f"anomaly(n, relative_change(max_increase = 7, order = 2), {EVERY_RUN})",
        range(5, 6),
        [5],
    ),
    Case(
        "HoltWintersTest: predict no anomaly for normally distributed errors",
        WITH_HEAD,
        f"{DAILY_WEEKLY}.detect(data, (14, 15))",
        HOLT_WINTERS,
        range(14, 15),
        [],
    ),
    Case(
        "HoltWintersTest: predict an anomaly",
        WITH_ZERO,
        f"{DAILY_WEEKLY}.detect(data, (14, Int.MaxValue))",
        HOLT_WINTERS,
        range(14, 15),
        [14],
        # statsmodels' fit of the 14 noisy values forecasts 1.129 with residual stddev 0.827: the
        # bounds are [-0.491, 2.750], and 0 is inside them
        gryph=[],
    ),
    Case(
        "HoltWintersTest: predict no anomalies on longer series",
        FOUR_WEEKS,
        f"{DAILY_WEEKLY}.detect(data, (26, Int.MaxValue))",
        HOLT_WINTERS,
        range(26, 28),
        [],
    ),
    Case(
        "HoltWintersTest: detect no anomalies on constant series",
        CONSTANT,
        f"{DAILY_WEEKLY}.detect(data, (14, Int.MaxValue))",
        HOLT_WINTERS,
        range(14, 21),
        [],
    ),
    Case(
        "HoltWintersTest: detect a single anomaly in constant series with a single error",
        ONE_ERROR,
        f"{DAILY_WEEKLY}.detect(data, (14, Int.MaxValue))",
        HOLT_WINTERS,
        range(14, 21),
        [20],
    ),
    Case(
        "HoltWintersTest: detect no anomalies on exact linear trend series",
        LINEAR,
        f"{DAILY_WEEKLY}.detect(data, (36, Int.MaxValue))",
        HOLT_WINTERS,
        range(36, 48),
        [],
    ),
    Case(
        "HoltWintersTest: detect no anomalies on exact linear and seasonal effects",
        WEEKLY_LINEAR,
        f"{DAILY_WEEKLY}.detect(data, (36, Int.MaxValue))",
        HOLT_WINTERS,
        range(36, 48),
        [],
    ),
    Case(
        "HoltWintersTest: detect anomalies if the training data is wrong",
        [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] * 2 + [1.0] * 7,
        f"{DAILY_WEEKLY}.detect(data, (14, 21))",
        HOLT_WINTERS,
        range(14, 21),
        [14],
    ),
    Case(
        "issue 44: a negative series, -100 then -150 (relative change, signed)",
        [-100.0, -150.0],
        "RelativeRateOfChangeStrategy(None, Some(1.1))",  # -150 / -100 = 1.5 > 1.1: an anomaly to Deequ
        "anomaly(n, relative_change(max_increase = 0.1))",  # gryph: 50% less, a decrease, not watched
        range(2),
        [1],
        gryph=[],
    ),
]


def _found(case: Case, tmp_path: Path) -> list[int]:
    """The indices where gryph's check finds an anomaly, run by run; every anomaly's value is
    outside the bounds it shows (Deequ's "produce error message with correct value and bounds")."""
    store = HistoryStore(tmp_path / "h.duckdb")
    check = case.check.replace("anomaly(n,", 'anomaly(measures["n"],')
    start = NOW - dt.timedelta(days=len(case.series) + 1)
    if case.batch:
        for i, value in enumerate(case.series):
            if i not in case.judged:
                record(store, start + dt.timedelta(days=i), value)
    found = []
    for i, value in enumerate(case.series):
        if case.batch and i not in case.judged:
            continue
        # a run is judged at its own time (Holt-Winters places today one run spacing after the run before)
        today = NOW if case.batch else start + dt.timedelta(days=i)
        finding = outcome(store, check, value, now=today) if i in case.judged else None
        anomaly = finding.anomaly if finding is not None else None
        if anomaly:
            found.append(i)
            shown = finding.values  # type: ignore[union-attr]
            assert not shown.get("lower bound", -math.inf) <= value <= shown.get("upper bound", math.inf)
        if not case.batch:
            record(
                store,
                start + dt.timedelta(days=i),
                value,
                passed=not anomaly,
                anomalies={} if anomaly is None else {"c": anomaly},
            )
    return found


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_gryph_finds_what_deequs_test_asserts_or_declares_why_not(case, tmp_path):
    found = _found(case, tmp_path)
    assert found == (case.anomalies if case.gryph is None else case.gryph)


def test_the_noisy_series_is_deequs_random_1():
    """java.util.Random(1).nextGaussian(), first values as jshell prints them (JDK 17)."""
    random = JavaRandom(1)
    assert [random.next_gaussian() for _ in range(3)] == [1.561581040188955, -0.6081826070068602, -1.0912278829447088]


def test_online_normal_leaves_an_anomaly_out_of_its_mean_and_variance(tmp_path):
    """OnlineNormalStrategyTest "ignores anomalies in calculation if wanted": 1, 1, 1, 2, 1, 1, 1
    (k 1.5, the first 20% skipped): 2 is an anomaly, and the last point's mean is 1, stddev 0."""
    store = HistoryStore(tmp_path / "h.duckdb")
    check = 'anomaly(measures["n"], online_normal(k = 1.5), min_history = 2)'
    findings = []
    for i, value in enumerate([1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]):
        finding = outcome(store, check, value)
        findings.append(finding)
        flag = {} if finding.anomaly is None else {"c": finding.anomaly}
        record(store, NOW - dt.timedelta(days=10 - i), value, passed=not finding.anomaly, anomalies=flag)
    assert [f.anomaly for f in findings] == [None, None, False, True, False, False, False]
    # 2 against 1, 1, 1 and itself: mean 1.25, population variance 0.1875, 1.25 + 1.5 * 0.433 = 1.90
    assert findings[3].values["upper bound"] == pytest.approx(1.25 + 1.5 * math.sqrt(0.1875))
    assert findings[-1].values["mean with today"] == 1.0 and findings[-1].values["stddev with today"] == 0.0


def test_online_normal_with_its_anomalies_is_the_population_statistics(tmp_path):
    """ "doesn't ignore anomalies in calculation if not wanted" (ignoreAnomalies = false: gryph's
    include_anomalies = true): the last point's mean is the series' (8/7), its stddev the
    population one, sqrt(6)/7 (Deequ's test asserts within 10% of breeze's sample stddev, 0.378)."""
    store = HistoryStore(tmp_path / "h.duckdb")
    for i, value in enumerate([1.0, 1.0, 1.0, 2.0, 1.0, 1.0]):
        record(store, NOW - dt.timedelta(days=10 - i), value, passed=value == 1.0, anomalies={"c": value == 2.0})
    check = 'anomaly(measures["n"], online_normal(k = 1.5), include_anomalies = true, include_failed = true)'
    last = outcome(store, check, 1.0)
    assert last.values["mean with today"] == pytest.approx(8 / 7)
    assert last.values["stddev with today"] == pytest.approx(math.sqrt(6) / 7)
    assert abs(last.values["stddev with today"] - math.sqrt(1 / 7)) < 0.1 * math.sqrt(1 / 7)


@pytest.mark.parametrize(
    "data,order,expected",
    [  # AbsoluteChangeStrategyTest's "derive first / second / third order correctly"
        ([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 1, [1.0, 2.0, -3.0, 1.0, 6.0]),
        ([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 2, [1.0, -5.0, 4.0, 5.0]),
        ([1.0, 5.0, -10.0, 3.0, 100.0, 0.01, 0.0065], 3, [47, 56, -280.99, 296.9765]),
    ],
)
def test_absolute_change_takes_deequs_differences(data, order, expected, tmp_path):
    """With no change allowed, both bounds are what today's value had to be for a difference of
    0: today minus the bound is the order-th difference Deequ's test expects."""
    store = HistoryStore(tmp_path / "h.duckdb")
    check = f'anomaly(measures["n"], absolute_change(max_increase = 0, max_decrease = 0, order = {order}))'
    differences = []
    for i, value in enumerate(data):
        if i >= order:
            differences.append(value - outcome(store, check, value).values["upper bound"])
        record(store, NOW - dt.timedelta(days=10 - i), value)
    assert differences == pytest.approx(expected)


@pytest.mark.parametrize(
    "data,order,expected",
    [  # RelativeRateOfChangeStrategyTest's "derive first / second / third order correctly"
        ([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 1, [2.0, 2.0, 0.25, 2.0, 4.0]),
        ([1.0, 2.0, 4.0, 1.0, 2.0, 8.0], 2, [4.0, 0.5, 0.5, 8.0]),
        ([1.0, 5.0, -10.0, 3.0, 100.0, 0.01, 0.006], 3, [3.0, 20.0, -0.001, 0.002]),
    ],
)
def test_relative_change_compares_with_the_value_order_runs_back(data, order, expected, tmp_path):
    """Deequ's rate is today over the value ``order`` runs back: gryph's baseline value."""
    store = HistoryStore(tmp_path / "h.duckdb")
    check = f'anomaly(measures["n"], relative_change(max_increase = 0, order = {order}))'
    rates = []
    for i, value in enumerate(data):
        if i >= order:
            rates.append(value / outcome(store, check, value).values["baseline value"])
        record(store, NOW - dt.timedelta(days=10 - i), value)
    assert rates == pytest.approx(expected)


def _series_name(series: list[float]) -> str:
    """How the docs' table names a case's series."""
    named = {
        id(NOISY_51): "51 Gaussians of Random(1), 20..30 moved by +i (even) or -i (odd)",
        id(NOISY_50): "50 Gaussians of Random(1), 20..30 moved by +i (even) or -i (odd)",
        id(SIGNED): "51 values 1.0, 20..30: i (even) or -i (odd)",
        id(RATIOS): "51 values 1.0, 20..30: i (even) or 1 (odd)",
        id(
            WITH_HEAD
        ): "two weeks (1, 1, 1.2, 1.3, 1.5, 2.1, 1.9 twice, plus Gaussians of Random(42)), then its first value",
        id(WITH_ZERO): "two weeks (1, 1, 1.2, 1.3, 1.5, 2.1, 1.9 twice, plus Gaussians of Random(42)), then 0",
        id(FOUR_WEEKS): "the two weeks (1, 1, 1.2, 1.3, 1.5, 2.1, 1.9 twice, plus Gaussians of Random(42)) twice",
        id(CONSTANT): "21 values 1.0",
        id(ONE_ERROR): "20 values 1.0, then 0",
        id(LINEAR): "0, 1, ..., 47",
        id(WEEKLY_LINEAR): "t + sin(2πt / 7), t = 0..47",
    }
    return named.get(id(series)) or ", ".join(f"{v:g}" for v in series) or "empty"


def _indices(found: list[int]) -> str:
    """20..30, 20..30 step 2, 4, 5 or none."""
    steps = {b - a for a, b in itertools.pairwise(found)}
    if len(found) > 2 and len(steps) == 1:
        [step] = steps
        return f"{found[0]}..{found[-1]}" + ("" if step == 1 else f" step {step}")
    return ", ".join(map(str, found)) or "none"


def test_docs_table_lists_every_case_with_its_verdict():
    """docs/monitoring.md's conformance table: one row per case, as the case says, "agree" or
    "declared: why"."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "monitoring.md").read_text(encoding="utf-8")
    rows = {}
    for line in page.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 7:
            rows[cells[0]] = cells
    for case in CASES:
        gryph = case.anomalies if case.gryph is None else case.gryph
        verdict = "agree" if case.gryph is None else "declared: "
        row = rows.get(case.name)
        assert row is not None, f"docs/monitoring.md has no row for {case.name!r}"
        assert row[1:6] == [
            f"`{case.deequ}`",
            _series_name(case.series),
            f"`{case.check}`",
            _indices(case.anomalies),
            _indices(gryph),
        ], case.name
        assert row[6].startswith(verdict) and (case.gryph is None or len(row[6]) > len(verdict)), case.name
