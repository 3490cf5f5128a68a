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


class FreshnessLowering(RuleLowering[CheckedFreshness]):
    kinds = (RuleKind.FRESHNESS,)

    def lower(self) -> Finisher:
        rule, checked = self.rule, self.checked
        read = self.read(checked.source)
        total_ref = self.collector.value(read, count_all(filter=checked.valid))
        end = "oldest" if checked.oldest else "newest"
        end_ref = self.collector.value(
            read,
            AggregateCall(AggFn.MIN if checked.oldest else AggFn.MAX, (checked.time,), INTEGER, filter=checked.valid),
        )
        data_time = self.options.data_time_ms
        reference = data_time if data_time is not None else self.options.now_ms
        names = self.metric_names()

        def finish(results: Results) -> RuleResult:
            time = results.value(end_ref)
            row = {
                names["total"]: results.value(total_ref) or 0,
                names[end]: time,
                names["age_ms"]: None if time is None else reference - time,
            }
            return RuleResult(rule.name, rule.kind, [self.write([row])], [])

        return finish
