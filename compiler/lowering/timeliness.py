"""Timeliness: latency (end minus begin, epoch milliseconds) of every row with both times.

Metrics as Griffin's: ``total`` rows with both times, ``avg`` latency truncated to an integer
(computed exactly from the integer sum), late records over ``threshold``, a ``step.size``
histogram ``{step, count}`` with ``step = trunc(latency / step.size)``, and
``percentile.values`` as ``percentile_NN``: the smallest latency v such that at least that
fraction of latencies is <= v, computed exactly (the plan's PERCENTILE_DISC aggregate).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..collect import Results
from ..plan import (
    AggFn,
    AggregateCall,
    Aggregate,
    Call,
    Cast,
    Field,
    Filter,
    Fn,
    IsNull,
    Literal,
    Named,
    Project,
    Scalar,
    SortKey,
    Sort,
    and_all,
    count_all,
    not_,
    free_prefix,
)
from ..resolve import Resolver
from ..time_literals import split_time
from ..results import MetricWrite, RuleResult
from ..types import BOOLEAN, DOUBLE, INTEGER, TIMESTAMP, Kind
from ..ruletree.nodes import SelectList
from .common import Finisher, RuleLowering, positive


def percentile_name(prefix: str, fraction: float) -> str:
    """``percentile_95`` for 0.95: Griffin's ``(p * 100).toInt`` without float artefacts."""
    return f"{prefix}_{math.floor(fraction * 100 + 1e-9)}"


# a duration beyond this is a mistake, and would overflow 64-bit milliseconds with the times it meets
MAX_DURATION_MS = 1000 * 365 * 86_400_000


def duration_ms(value: object) -> int | None:
    """A duration detail (``3m``, ``500ms``, a number of milliseconds) in milliseconds; None when
    unset. ValueError says what is wrong with any other value."""
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a duration such as 3m, got {value!r}")
    if isinstance(value, str):
        number, unit_ms = split_time(value)
        if not number.isdigit():
            raise ValueError(f"must be a duration such as 3m, got {value!r}")
        value = int(number) * unit_ms if len(number) <= 18 else math.inf
    if value <= 0:
        raise ValueError(f"must be positive, got {value!r}")
    if not value < MAX_DURATION_MS:  # also NaN and infinity
        raise ValueError("must be a duration under 1000 years")
    return int(value)


class TimelinessLowering(RuleLowering):
    kinds = ("timeliness",)
    details_allowed = (
        "total",
        "avg",
        "latency",
        "threshold",
        "step",
        "step.size",
        "count",
        "percentile",
        "percentile.values",
    )

    def lower(self) -> Finisher:
        rule = self.rule
        read = self.read(rule.source)
        resolver = Resolver(self.source_scope(rule.source))
        selections = self.selections(self.body_as(SelectList).items, resolver)
        if len(selections) not in (1, 2):
            raise self.error(
                "WRONG_ARITY",
                "timeliness takes a begin time and an optional end time",
                hint="e.g. created_ts, shipped_ts",
            )
        begin = self._millis(selections[0])
        end = self._millis(selections[1]) if len(selections) == 2 else Literal(self.options.now_ms, INTEGER)
        # a time in milliseconds is NULL exactly when the time is: test the columns, not the conversions
        valid = and_all([not_(IsNull(expr)) for expr, _, _ in selections])
        latency = Call(Fn.SUBTRACT, (end, begin), INTEGER)
        latency_name = free_prefix(self.name_of("latency"), read.schema)
        with_latency = Project(
            Filter(read, valid),
            tuple(Named(Field(c.name, c.dtype), c.name) for c in read.schema.columns) + (Named(latency, latency_name),),
        )
        latency_field = Field(latency_name, INTEGER)

        total_ref = self.collector.value(read, count_all(filter=valid))
        sum_ref = self.collector.value(read, AggregateCall(AggFn.SUM, (latency,), INTEGER, filter=valid))
        threshold = self._duration("threshold")
        late_refs = None
        if threshold is not None:
            # counted in the source's shared scan; only the sample reads the latency projection
            late = and_all([valid, Call(Fn.GT, (latency, Literal(threshold, INTEGER)), BOOLEAN)])
            late_sample = Call(Fn.GT, (latency_field, Literal(threshold, INTEGER)), BOOLEAN)
            late_ref = self.collector.value(read, count_all(filter=late))
            late_refs = (late_ref, self.sample(Filter(with_latency, late_sample), "lateRecords", positive(late_ref)))
        step_size = self._duration("step.size")
        steps_ref = (
            self.collector.rows(self._histogram(with_latency, latency_field, step_size))
            if step_size is not None
            else None
        )
        fractions = self._fractions()
        percentile_refs = self._percentiles(read, latency, valid, fractions)
        names = {key: self.name_of(key) for key in ("total", "avg", "step", "percentile")}

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            latency_sum = results.value(sum_ref)
            # integer division toward zero, as CAST(AVG(latency) AS BIGINT)
            average = None if not total or latency_sum is None else int(Fraction(latency_sum, total))
            writes = [self.write([{names["total"]: total, names["avg"]: average}])]
            records = []
            if late_refs is not None:
                records.append(self.record(results, "lateRecords", results.value(late_refs[0]), late_refs[1]))
            if steps_ref is not None:
                writes.append(MetricWrite(names["step"], results.rows(steps_ref), "array"))
            if percentile_refs:
                row = {
                    percentile_name(names["percentile"], p): results.value(ref)
                    for p, ref in zip(fractions, percentile_refs)
                }
                writes.append(MetricWrite("__percentile", [row], "default"))
            return RuleResult(rule.name, rule.kind, writes, records)

        return finish

    def _millis(self, selection) -> Scalar:
        expr, _, node = selection
        kind = expr.dtype.kind
        if kind is Kind.INTEGER:
            return expr
        if kind in (Kind.TIMESTAMP, Kind.DATE):
            value = expr if kind is Kind.TIMESTAMP else Cast(expr, TIMESTAMP)
            return Call(Fn.EPOCH_MILLIS, (value,), INTEGER)
        raise self.scope_for([]).error(
            "TYPE_MISMATCH",
            f"a timeliness time must be a timestamp or epoch milliseconds, got {expr.dtype}",
            node,
            "cast it: cast(x as timestamp)",
        )

    def _duration(self, key: str) -> int | None:
        try:
            return duration_ms(self.rule.details.get(key))
        except ValueError as problem:
            hint = "write it in a larger unit: 30d, 12h" if "1000 years" in str(problem) else None
            raise self.detail_error(key, "BAD_DETAIL", f"{key} {problem}", hint) from None

    def _fractions(self) -> list[float]:
        values = self.rule.details.get("percentile.values")
        if values in (None, ""):
            return []
        values = values if isinstance(values, (list, tuple)) else [values]
        out = []
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise self.detail_error(
                    "percentile.values", "BAD_DETAIL", f"percentile.values must be fractions in [0, 1], got {value!r}"
                )
            out.append(float(value))
        return out

    def _histogram(self, rows, latency: Field, step_size: int):
        step_name = self.name_of("step")
        step = Cast(Call(Fn.DIVIDE, (latency, Literal(step_size, INTEGER)), DOUBLE), INTEGER)
        grouped = Aggregate(rows, (Named(step, step_name),), (Named(count_all(), self.name_of("count")),))
        return Sort(grouped, (SortKey(Field(step_name, INTEGER)),))

    def _percentiles(self, read, latency: Scalar, valid: Scalar, fractions: list[float]):
        """One exact percentile_disc per fraction, in the source's shared scan."""
        return [
            self.collector.value(
                read, AggregateCall(AggFn.PERCENTILE_DISC, (latency, Literal(p, DOUBLE)), INTEGER, filter=valid)
            )
            for p in fractions
        ]
