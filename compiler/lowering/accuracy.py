"""Accuracy: how many source rows find a matching target row.

Griffin's semantics, kept on purpose: equalities compare ``coalesce(x, '')`` (so NULL matches
NULL and ''), a source row whose referenced source columns are all NULL is never a miss, and
``matchedFraction`` is 1.0 on an empty source. A miss is a source row for which no target row
satisfies the rule: one anti join per rule, whose rows are also the miss records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analysis.checked_rules import CheckedAccuracy
from ..plan import (
    Field,
    Filter,
    IsNull,
    Join,
    JoinKind,
    Read,
    Relation,
    and_all,
    count_all,
    not_,
)
from ..plan.scalars import field_names
from ..results import RuleResult, Segments
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive, rename_all
from .query_collector import Results
from .segments import SegmentRefs


class AccuracyLowering(RuleLowering[CheckedAccuracy]):
    """``rule [WHEN cond]`` and ``IF (cond) rule``: a miss is a judged source row without a match.

    The conjuncts of the condition that read only the source choose the rows the rule judges
    (the others are not counted at all); the conjuncts that read the target join with the rule,
    so a judged row matches when one target row satisfies both.
    """

    kinds = (RuleKind.ACCURACY,)

    def lower(self) -> Finisher:
        rule, checked = self.rule, self.checked
        source_read = self.read(checked.source)
        judged = _judged(checked, source_read)
        misses = miss_relation(checked, source_read, self.read(checked.target))

        total_ref = self.collector.value(judged, count_all())
        miss_ref = self.collector.value(misses, count_all())
        sample_ref = self.sample(misses, "missRecords", positive(miss_ref))
        names = self.metric_names()

        def metrics(total: int, miss: int) -> dict[str, Any]:
            matched = total - miss
            return {
                names["total"]: total,
                names["miss"]: miss,
                names["matched"]: matched,
                names["matchedFraction"]: matched / total if total else 1.0,
            }

        by_segment = None
        if checked.segment is not None:
            by_segment = self._segments(judged, misses, checked.segment, metrics)

        def finish(results: Results) -> RuleResult:
            miss = results.value(miss_ref) or 0
            return RuleResult(
                rule.name,
                rule.kind,
                [self.write([metrics(results.value(total_ref) or 0, miss)])],
                [self.record(results, "missRecords", miss, sample_ref)],
                segments=None if by_segment is None else by_segment(results),
            )

        return finish

    def _segments(
        self, judged: Relation, misses: Relation, segment: Field, metrics: Callable[[int, int], dict[str, Any]]
    ) -> Callable[[Results], Segments]:
        """Each segment's judged rows, in the grouped query of the judged rows (the source's, with
        no condition), and its misses, counted per segment from the rule's one anti join."""
        segments = SegmentRefs(self, judged, segment)
        total_ref = segments.value(count_all())
        miss_ref = segments.value_from(misses, segment, count_all())
        return lambda results: segments.finish(results, lambda get: metrics(get(total_ref), get(miss_ref) or 0))


def _judged(checked: CheckedAccuracy, source_read: Read) -> Relation:
    """The source rows the rule judges."""
    return Filter(source_read, and_all(list(checked.judged))) if checked.judged else source_read


def miss_relation(checked: CheckedAccuracy, source_read: Read, target_read: Read, shuffled: bool = False) -> Relation:
    """The judged source rows no target row matches (one anti join, ``shuffled`` as a Join's),
    all-NULL rows left out."""
    prefix = checked.prefix
    condition = and_all(list(checked.terms + checked.joined))
    target_used = {name[len(prefix) :] for name in field_names(condition) if name.startswith(prefix)}
    target_rel = rename_all(target_read, lambda name: prefix + name, keep=target_used)
    all_null = and_all([IsNull(f) for f in checked.source_fields])
    return Filter(
        Join(JoinKind.ANTI, _judged(checked, source_read), target_rel, condition, shuffled=shuffled), not_(all_null)
    )
