"""Completeness: how many source rows have every selected value present (the check pass decides
what makes a row incomplete)."""

from __future__ import annotations

from ..analysis.checked_rules import CheckedCompleteness
from ..plan import Filter, count_all
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive
from .query_collector import Results


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

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            missing = results.value(incomplete_ref) or 0
            row = {names["total"]: total, names["incomplete"]: missing, names["complete"]: total - missing}
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([row])],
                [self.record(results, "incompleteRecords", missing, sample_ref)],
            )

        return finish
