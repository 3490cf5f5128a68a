"""The functions of the check language: a closed table, each with its arity and implementation.

History functions read earlier runs through a ``HistoryReader``; the compiler never opens the
history store itself (the client's ``history`` module does).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..language.time_literals import duration_ms
from ..results import Row
from .schema_checks import Columns, schema_changes
from .statistics import median, median_absolute_deviation, quantile, sample_stddev, sample_variance

HISTORY_LIMIT = 10_000  # values read from history per call, newest first


class CheckError(Exception):
    """A check could not be evaluated (wrong types, missing key): the check fails with this message."""


@dataclass(frozen=True)
class Point:
    """One earlier run's value of what an anomaly check watches (a measure's value or a rule's
    metrics, before any subscript), and when that run started."""

    value: object
    started: dt.datetime  # timezone-aware, UTC


@dataclass(frozen=True, slots=True)
class BaselineQuery:
    """Which earlier runs an anomaly check learns from: the values of measure (``source`` is
    "measure") or rule ("metric") ``name``, without failed runs and the runs where check ``check``
    found an anomaly unless it includes them; runs accepted by hand (``gryph history accept``) and
    runs of a streak of at least ``relearn_after`` consecutive anomalies of the check (0: never)
    always count, so a lasting level shift becomes the new baseline; with ``since``/``until``, only
    runs of that time (data time, else start), both included."""

    source: str
    name: str
    check: str
    include_failed: bool = False
    include_anomalies: bool = False
    relearn_after: int = 0
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    segment: str | None = None  # a `check ... by COLUMN`: this segment's values (segment_checks.segment_key)


class HistoryReader(Protocol):
    def measure_values(
        self,
        suite: str,
        measure: str,
        limit: int,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
    ) -> list[object]:
        """A measure's values in earlier runs of ``suite`` (started at or after ``since`` and at or
        before ``until``), newest first."""

    def metric_values(self, suite: str, rule: str, limit: int) -> list[object]:
        """A rule's metrics (its map, or its rows) in earlier runs of ``suite``, newest first."""

    def baseline(self, suite: str, query: BaselineQuery, limit: int) -> list[Point]:
        """The earlier runs an anomaly check learns from, newest first."""

    def schema(self, suite: str, source: str) -> Columns | None:
        """The columns of ``source`` stored with the newest earlier run of ``suite`` that read it."""

    def segments(self, suite: str, source: str, name: str) -> list[str] | None:
        """The segments (their keys) of measure or rule ``name`` in the newest earlier run of
        ``suite`` that stored some; None when none did."""


class NoHistory:
    """No history store: every history function sees no earlier runs."""

    def measure_values(
        self,
        suite: str,
        measure: str,
        limit: int,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
    ) -> list[object]:
        return []

    def metric_values(self, suite: str, rule: str, limit: int) -> list[object]:
        return []

    def baseline(self, suite: str, query: BaselineQuery, limit: int) -> list[Point]:
        return []

    def schema(self, suite: str, source: str) -> Columns | None:
        return None

    def segments(self, suite: str, source: str, name: str) -> list[str] | None:
        return None


@dataclass(frozen=True)
class Clock:
    """What history functions need to know about the current run."""

    suite: str
    started: dt.datetime  # timezone-aware, UTC
    history: HistoryReader
    schemas: Mapping[str, Columns] = field(default_factory=dict)  # each source's columns now


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _items(value: object, fn: str) -> list[object]:
    if isinstance(value, Row):
        return list(value.values)
    if isinstance(value, list):
        return value
    raise CheckError(f"{fn}() needs a list, got {type_name(value)}")


def _numbers(values: list[object], fn: str) -> list[float | int]:
    present: list[float | int] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise CheckError(f"{fn}() needs numbers, got {type_name(value)}")
        present.append(value)
    return present


def shown(value: object) -> str:
    """A value as an error message shows it: an integer of hundreds of digits by its size (Python
    will not even print one of more than 4,300)."""
    if isinstance(value, int) and abs(value) >= 10**20:
        return f"an integer of about {math.floor(math.log10(abs(value))) + 1} digits"
    return repr(value)


def _floats(numbers: list[int | float], fn: str) -> list[float]:
    """The numbers as floats; an integer beyond the float range is the check's error, not inf."""
    floats = []
    for number in numbers:
        try:
            floats.append(float(number))
        except OverflowError:
            raise CheckError(f"{fn}() got {shown(number)}, beyond the range of a floating-point number") from None
    return floats


def _float_sum(numbers: list[float]) -> float:
    """The exactly rounded sum; beyond the float range it is inf (NaN for inf plus -inf), as float
    addition gives, where ``math.fsum`` would raise."""
    try:
        return math.fsum(numbers)
    except (OverflowError, ValueError):
        return sum(numbers)


def _mean(numbers: list[int | float], fn: str) -> float | None:
    """The average (null of nothing), in range whenever the values are."""
    if not numbers:
        return None
    floats = _floats(numbers, fn)
    total = _float_sum(floats)
    if math.isinf(total) and all(math.isfinite(f) for f in floats):
        # the sum overflowed though the mean is in range: add the shares instead
        return math.fsum(f / len(floats) for f in floats)
    return total / len(floats)


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Row):
        return "row"
    return "list" if isinstance(value, list) else "map"


def _len(clock: Clock, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, Row):
        return len(value.values)
    if isinstance(value, (str, list, dict)):
        return len(value)
    raise CheckError(f"len() needs a string, list or map, got {type_name(value)}")


def _avg(clock: Clock, value: object) -> float | None:
    return _mean(_numbers(_items(value, "avg"), "avg"), "avg")


def _sum(clock: Clock, value: object) -> int | float:
    numbers = _numbers(_items(value, "sum"), "sum")
    return sum(numbers) if all(isinstance(n, int) for n in numbers) else _float_sum(_floats(numbers, "sum"))


def _extreme(pick: Callable[[list[Any]], Any], fn: str) -> Callable[..., Any]:
    def extreme(clock: Clock, *args: object) -> Any:
        values = _items(args[0], fn) if len(args) == 1 else list(args)
        numbers_or_text = [v for v in values if v is not None]
        if not numbers_or_text:
            return None
        if not (all(is_number(v) for v in numbers_or_text) or all(isinstance(v, str) for v in numbers_or_text)):
            raise CheckError(f"{fn}() needs numbers or strings")
        return pick(numbers_or_text)

    return extreme


def _abs(clock: Clock, value: Any) -> Any:
    if value is None:
        return None
    if not is_number(value):
        raise CheckError(f"abs() needs a number, got {type_name(value)}")
    return abs(value)


def _count(value: object, fn: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CheckError(f"{fn}() needs a count of runs >= 0, got {shown(value)}")
    return min(value, HISTORY_LIMIT)


def _text(value: object, fn: str) -> str:
    if not isinstance(value, str):
        raise CheckError(f"{fn}() needs a name (a string), got {type_name(value)}")
    return value


def _previous(clock: Clock, name: object, n: object) -> list[object]:
    fn = "get_previous_measure_values"
    return clock.history.measure_values(clock.suite, _text(name, fn), _count(n, fn))


def _previous_other(clock: Clock, suite: object, name: object, n: object) -> list[object]:
    fn = "get_previous_measure_values_for_other_task"
    return clock.history.measure_values(_text(suite, fn), _text(name, fn), _count(n, fn))


def _average_since(clock: Clock, name: object, since: dt.datetime | None, fn: str) -> float | None:
    values = clock.history.measure_values(clock.suite, _text(name, fn), HISTORY_LIMIT, since)
    return _mean(_numbers(values, fn), fn)


def _avg_previous(clock: Clock, name: object, days: Any) -> float | None:
    if not is_number(days) or not days > 0:  # written so that NaN is refused too
        raise CheckError(f"avg_previous() needs a number of days > 0, got {shown(days)}")
    try:
        since = clock.started - dt.timedelta(days=days)
    except OverflowError:  # a window reaching back past year 1 holds every earlier run
        since = None
    return _average_since(clock, name, since, "avg_previous")


def _day_start(clock: Clock) -> dt.datetime:
    return clock.started.astimezone(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)


def _daily_avg(clock: Clock, name: object) -> float | None:
    return _average_since(clock, name, _day_start(clock), "daily_avg")


def _weekly_avg(clock: Clock, name: object) -> float | None:
    day = _day_start(clock)
    return _average_since(clock, name, day - dt.timedelta(days=day.weekday()), "weekly_avg")


def _monthly_avg(clock: Clock, name: object) -> float | None:
    return _average_since(clock, name, _day_start(clock).replace(day=1), "monthly_avg")


def number_list(value: object, fn: str) -> list[float]:
    """A list's numbers as floats, nulls left out."""
    return _floats(_numbers(_items(value, fn), fn), fn)


def _spread(statistic: Callable[[list[float]], float | None], fn: str) -> Callable[[Clock, object], float | None]:
    def spread(clock: Clock, value: object) -> float | None:
        return statistic(number_list(value, fn))

    return spread


def _quantile(clock: Clock, value: object, q: object) -> float | None:
    values = number_list(value, "quantile")
    if q is None:
        return None
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:  # NaN is refused too
        raise CheckError(f"quantile() needs q between 0 and 1, got {shown(q)}")
    return quantile(values, float(q))


def _number(value: object, fn: str) -> float:
    if not is_number(value):
        raise CheckError(f"{fn}() needs a number, got {type_name(value)}")
    return _floats([value], fn)[0]  # type: ignore[list-item]


def _sqrt(clock: Clock, value: object) -> float | None:
    if value is None:
        return None
    number = _number(value, "sqrt")
    if number < 0:
        raise CheckError(f"sqrt() of a negative number, {shown(value)}")
    return math.sqrt(number)


def _zscore(clock: Clock, value: object, values: object) -> float | None:
    """How many sample standard deviations ``value`` lies from the list's mean; null when either
    is unknown or the list does not vary (as division by zero is null)."""
    numbers = number_list(values, "zscore")
    if value is None:
        return None
    number = _number(value, "zscore")
    spread = sample_stddev(numbers)
    mean = _mean(list(numbers), "zscore")
    if spread is None or spread == 0 or mean is None:
        return None
    return (number - mean) / spread


def _metric_key(metrics: object, rule: str, key: str) -> object:
    """A metric of one run's rule metrics; null for a run that did not have it."""
    if metrics is None:
        return None
    if not isinstance(metrics, dict):
        raise CheckError(f"rule {rule!r} gives rows, not a map of metrics: read them with metrics[{rule!r}]")
    return metrics.get(key)


def _metric_history(clock: Clock, rule: object, key: object, n: object) -> list[object]:
    fn = "metric_history"
    name, metric = _text(rule, fn), _text(key, fn)
    return [_metric_key(m, name, metric) for m in clock.history.metric_values(clock.suite, name, _count(n, fn))]


def _previous_metric(clock: Clock, rule: object, key: object) -> object:
    values = _metric_history(clock, rule, key, 1)
    return values[0] if values else None


def period(value: object, fn: str) -> dt.timedelta:
    """A period written as a duration string (``"7d"``, ``"24h"``)."""
    if not isinstance(value, str):
        raise CheckError(f'{fn}() needs a period such as "7d", got {type_name(value)}')
    try:
        ms = duration_ms(value)
    except ValueError as error:
        raise CheckError(f"{fn}() period {error}") from None
    if ms is None:
        raise CheckError(f'{fn}() needs a period such as "7d", got {value!r}')
    return dt.timedelta(milliseconds=ms)


def period_back(started: dt.datetime, ago: dt.timedelta) -> tuple[dt.datetime, dt.datetime]:
    """The times a run one period ``ago`` before ``started`` may have: exactly one period back, give
    or take a tenth of the period (16.8 hours for "7d"), so last week's run that started a little
    later or earlier counts, and the day before it (a weekend day for "7d") never does."""
    return started - ago - ago / 10, started - ago + ago / 10


def _value_ago(clock: Clock, name: object, ago: object) -> object:
    """The measure's value in the run one period ``ago`` back (``value_ago("rows", "7d")``: the same
    weekday last week, see ``period_back``); null when there is none (the check is not evaluated)."""
    fn = "value_ago"
    since, until = period_back(clock.started, period(ago, fn))
    values = clock.history.measure_values(clock.suite, _text(name, fn), 1, since=since, until=until)
    return values[0] if values else None


def _schema_changes(clock: Clock, source: object) -> dict[str, list[Any]]:
    """Columns added, removed and changed type since the previous run (``schema_changes("users")``)."""
    name = _text(source, "schema_changes")
    if name not in clock.schemas:
        raise CheckError(f"schema_changes() needs a source of this suite, got {name!r}")
    return schema_changes(clock.history.schema(clock.suite, name), dict(clock.schemas[name]))


@dataclass(frozen=True)
class Function:
    """A check-language function: how many arguments it takes and which one names a measure."""

    impl: Callable[..., Any]  # (clock, *arguments) -> value
    min_args: int
    max_args: int | None  # None: any number
    measure_arg: int | None = None  # the argument naming a measure of this suite (checked when literal)
    rule_arg: int | None = None  # the argument naming a rule of this suite (checked when literal)
    source_arg: int | None = None  # the argument naming a source of this suite (checked when literal)
    # reads earlier runs: null or [] from it means no earlier run yet, and a check it leaves
    # unknown is skipped, not failed (see verdict.py)
    reads_history: bool = False

    def arity(self) -> str:
        if self.max_args == self.min_args:
            return f"{self.min_args} argument{'s' if self.min_args != 1 else ''}"
        return f"at least {self.min_args} argument{'s' if self.min_args != 1 else ''}"


FUNCTIONS: dict[str, Function] = {
    "len": Function(_len, 1, 1),
    "avg": Function(_avg, 1, 1),
    "sum": Function(_sum, 1, 1),
    "min": Function(_extreme(min, "min"), 1, None),
    "max": Function(_extreme(max, "max"), 1, None),
    "abs": Function(_abs, 1, 1),
    "get_previous_measure_values": Function(_previous, 2, 2, measure_arg=0, reads_history=True),
    "get_previous_measure_values_for_other_task": Function(_previous_other, 3, 3, reads_history=True),
    "avg_previous": Function(_avg_previous, 2, 2, measure_arg=0, reads_history=True),
    "daily_avg": Function(_daily_avg, 1, 1, measure_arg=0, reads_history=True),
    "weekly_avg": Function(_weekly_avg, 1, 1, measure_arg=0, reads_history=True),
    "monthly_avg": Function(_monthly_avg, 1, 1, measure_arg=0, reads_history=True),
    "stddev": Function(_spread(sample_stddev, "stddev"), 1, 1),
    "variance": Function(_spread(sample_variance, "variance"), 1, 1),
    "median": Function(_spread(median, "median"), 1, 1),
    "mad": Function(_spread(median_absolute_deviation, "mad"), 1, 1),
    "quantile": Function(_quantile, 2, 2),
    "sqrt": Function(_sqrt, 1, 1),
    "zscore": Function(_zscore, 2, 2),
    "metric_history": Function(_metric_history, 3, 3, rule_arg=0, reads_history=True),
    "previous_metric": Function(_previous_metric, 2, 2, rule_arg=0, reads_history=True),
    "value_ago": Function(_value_ago, 2, 2, measure_arg=0, reads_history=True),
    "schema_changes": Function(_schema_changes, 1, 1, source_arg=0),
}
