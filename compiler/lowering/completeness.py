"""Completeness: how many source rows have every selected value present (the check pass decides
what makes a row incomplete)."""

from __future__ import annotations

from ..analysis.checked_rules import CheckedCompleteness
from ..plan import Filter, count_all
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive
from .query_collector import Results
from .segments import SegmentRefs


class CompletenessLowering(RuleLowering[CheckedCompleteness]):
    kinds = (RuleKind.COMPLETENESS,)

    def lower(self) -> Finisher:
        rule = self.rule
        read = self.read(self.checked.source)
        incomplete = self.checked.incomplete
        total_ref = self.collector.value(read, count_all())
        incomplete_ref = self.collector.value(read, count_all(filter=incomplete))
        sample_ref = self.sample(Filter(read, incomplete), "incompleteRecords", positive(incomplete_ref))
        names = self.metric_names()

        segment = self.checked.segment
        if segment is not None:
            segments = SegmentRefs(self, read, segment)
            segment_totals = segments.value(count_all())
            segment_incomplete = segments.value(count_all(filter=incomplete))

        def metrics(total: int | None, missing: int | None) -> dict[str, int]:
            total, missing = total or 0, missing or 0
            return {names["total"]: total, names["incomplete"]: missing, names["complete"]: total - missing}

        def finish(results: Results) -> RuleResult:
            missing = results.value(incomplete_ref) or 0
            by_segment = None
            if segment is not None:
                by_segment = segments.finish(results, lambda get: metrics(get(segment_totals), get(segment_incomplete)))
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([metrics(results.value(total_ref), missing)])],
                [self.record(results, "incompleteRecords", missing, sample_ref)],
                segments=by_segment,
            )

        return finish
