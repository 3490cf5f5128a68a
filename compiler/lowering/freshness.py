"""Freshness: the newest time of a column (epoch milliseconds) and its age at the run's data time;
with ``of = oldest``, the oldest time (``oldest``) and its age, for a retention period.

``total`` rows with a time, ``newest`` the latest of them, ``age_ms`` the data time
(``--data-time``, else the run's start; a stream's batch time) minus ``newest``: negative for a
time after it, NULL when no row has a time. Both are one aggregate each in the source's shared
scan; the age is computed here, so the engines only count and take a maximum.
"""

from __future__ import annotations

from ..analysis.freshness import CheckedFreshness
from ..plan import AggFn, AggregateCall, count_all
from ..plan.data_types import INTEGER
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering
from .query_collector import Results
from .segments import SegmentRefs


class FreshnessLowering(RuleLowering[CheckedFreshness]):
    kinds = (RuleKind.FRESHNESS,)

    def lower(self) -> Finisher:
        rule, checked = self.rule, self.checked
        read = self.read(checked.source)
        total = count_all(filter=checked.valid)
        end = "oldest" if checked.oldest else "newest"
        edge = AggregateCall(AggFn.MIN if checked.oldest else AggFn.MAX, (checked.time,), INTEGER, filter=checked.valid)
        total_ref, edge_ref = self.collector.value(read, total), self.collector.value(read, edge)
        if checked.segment is not None:
            segments = SegmentRefs(self, read, checked.segment)
            segment_refs = (segments.value(total), segments.value(edge))
        data_time = self.options.data_time_ms
        reference = data_time if data_time is not None else self.options.now_ms
        names = self.metric_names()

        def metrics(rows: int | None, time: int | None) -> dict[str, int | None]:
            return {
                names["total"]: rows or 0,
                names[end]: time,
                names["age_ms"]: None if time is None else reference - time,
            }

        def finish(results: Results) -> RuleResult:
            row = metrics(results.value(total_ref), results.value(edge_ref))
            by_segment = None
            if checked.segment is not None:
                rows_ref, time_ref = segment_refs
                by_segment = segments.finish(results, lambda get: metrics(get(rows_ref), get(time_ref)))
            return RuleResult(rule.name, rule.kind, [self.write([row])], [], segments=by_segment)

        return finish
