"""Timeliness: latency (end minus begin, epoch milliseconds) of every row with both times.

Metrics as Griffin's: ``total`` rows with both times, ``avg`` latency truncated to an integer
(computed exactly from the integer sum), late records over ``threshold``, a ``step.size``
histogram ``{step, count}`` with ``step = trunc(latency / step.size)``, and
``percentile.values`` as ``percentile_NN``: the smallest latency v such that at least that
fraction of latencies is <= v, computed exactly (the plan's PERCENTILE_DISC aggregate).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..analysis.checked_rules import CheckedTimeliness
from ..plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Cast,
    Field,
    Filter,
    Fn,
    Literal,
    Named,
    Project,
    Relation,
    Scalar,
    Sort,
    SortKey,
    and_all,
    count_all,
    free_prefix,
)
from ..plan.data_types import BOOLEAN, DOUBLE, INTEGER
from ..results import MetricWrite, RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive
from .query_collector import Results
from .segments import SegmentRefs


def percentile_name(prefix: str, fraction: float) -> str:
    """``percentile_95`` for 0.95: Griffin's ``(p * 100).toInt`` without float artefacts."""
    return f"{prefix}_{math.floor(fraction * 100 + 1e-9)}"


class TimelinessLowering(RuleLowering[CheckedTimeliness]):
    kinds = (RuleKind.TIMELINESS,)

    def lower(self) -> Finisher:
        rule, checked = self.rule, self.checked
        read = self.read(checked.source)
        begin, end, valid = checked.begin, checked.end, checked.valid
        latency = Call(Fn.SUBTRACT, (end, begin), INTEGER)
        latency_name = free_prefix(self.name_of("latency"), read.schema)
        with_latency = Project(
            Filter(read, valid),
            (*tuple(Named(Field(c.name, c.dtype), c.name) for c in read.schema.columns), Named(latency, latency_name)),
        )
        latency_field = Field(latency_name, INTEGER)

        # the aggregates the rule's own metrics read, and each segment's with `by COLUMN`
        fractions = checked.fractions
        counts: dict[str, Scalar] = {
            "total": count_all(filter=valid),
            "sum": AggregateCall(AggFn.SUM, (latency,), INTEGER, filter=valid),
        }
        percentiles = {f"p{i}": self._percentile(latency, valid, fraction) for i, fraction in enumerate(fractions)}
        aggregates = counts | percentiles
        refs = {key: self.collector.value(read, expr) for key, expr in counts.items()}
        threshold = checked.threshold_ms
        late_refs = None
        if threshold is not None:
            # counted in the source's shared scan; only the sample reads the latency projection
            late = and_all([valid, Call(Fn.GT, (latency, Literal(threshold, INTEGER)), BOOLEAN)])
            late_sample = Call(Fn.GT, (latency_field, Literal(threshold, INTEGER)), BOOLEAN)
            late_ref = self.collector.value(read, count_all(filter=late))
            late_refs = (late_ref, self.sample(Filter(with_latency, late_sample), "lateRecords", positive(late_ref)))
        step_size = checked.step_ms
        steps_ref = (
            self.collector.rows(self._histogram(with_latency, latency_field, step_size))
            if step_size is not None
            else None
        )
        # asked after the late count, as before segments: the shared scan's columns keep their order
        refs |= {key: self.collector.value(read, expr) for key, expr in percentiles.items()}
        segment = checked.segment
        if segment is not None:
            segments = SegmentRefs(self, read, segment)
            segment_refs = {key: segments.value(expr) for key, expr in aggregates.items()}
        names = self.metric_names()

        def metrics(value: Callable[[str], Any]) -> dict[str, Any]:
            """``total``, ``avg`` and the percentiles, from the aggregates ``value`` reads by key."""
            total, latency_sum = value("total") or 0, value("sum")
            # integer division toward zero, as CAST(AVG(latency) AS BIGINT)
            average = None if not total or latency_sum is None else int(Fraction(latency_sum, total))
            row = {names["total"]: total, names["avg"]: average}
            row.update({percentile_name(names["percentile"], p): value(f"p{i}") for i, p in enumerate(fractions)})
            return row

        def finish(results: Results) -> RuleResult:
            row = metrics(lambda key: results.value(refs[key]))
            # the percentiles are a write of their own, after the step histogram
            percentile_row = {name: row.pop(name) for name in list(row) if name not in (names["total"], names["avg"])}
            writes = [self.write([row])]
            records = []
            if late_refs is not None:
                records.append(self.record(results, "lateRecords", results.value(late_refs[0]), late_refs[1]))
            if steps_ref is not None:
                writes.append(MetricWrite(names["step"], results.rows(steps_ref), "array"))
            if percentile_row:
                writes.append(MetricWrite("__percentile", [percentile_row], "default"))
            by_segment = None
            if segment is not None:
                by_segment = segments.finish(results, lambda get: metrics(lambda key: get(segment_refs[key])))
            return RuleResult(rule.name, rule.kind, writes, records, segments=by_segment)

        return finish

    def _histogram(self, rows: Relation, latency: Field, step_size: int) -> Relation:
        step_name = self.name_of("step")
        step = Cast(Call(Fn.DIVIDE, (latency, Literal(step_size, INTEGER)), DOUBLE), INTEGER)
        grouped = Aggregate(rows, (Named(step, step_name),), (Named(count_all(), self.name_of("count")),))
        return Sort(grouped, (SortKey(Field(step_name, INTEGER)),))

    @staticmethod
    def _percentile(latency: Scalar, valid: Scalar, fraction: float) -> AggregateCall:
        """The exact percentile_disc of the valid rows' latencies."""
        return AggregateCall(AggFn.PERCENTILE_DISC, (latency, Literal(fraction, DOUBLE)), INTEGER, filter=valid)
