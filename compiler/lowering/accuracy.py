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
    Aggregate,
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Limit,
    Named,
    Read,
    Relation,
    Sort,
    and_all,
    count_all,
    not_,
)
from ..plan.data_types import BOOLEAN, INTEGER
from ..plan.scalars import field_names
from ..results import RuleResult, Segments
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering, positive, rename_all
from .query_collector import GROUP_KEY, Results
from .segments import SEGMENT_ROWS, cap_of, kept_segments, segment_order


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
        """Each segment's judged rows and misses: the segments of the most judged rows, as the cap
        keeps them, each joined with its misses (none when it has none)."""
        cap, _ = cap_of(self)
        totals = Aggregate(judged, (Named(segment, GROUP_KEY),), (Named(count_all(), SEGMENT_ROWS),))
        kept = Limit(Sort(totals, segment_order(segment.dtype)), cap + 1)
        miss_key, miss_count = Field("__miss_key", segment.dtype), Field("__misses", INTEGER)
        missed = Aggregate(misses, (Named(segment, miss_key.name),), (Named(count_all(), miss_count.name),))
        on = Call(Fn.EQ_NULL_SAFE, (Field(GROUP_KEY, segment.dtype), miss_key), BOOLEAN)
        joined = Join(JoinKind.LEFT, kept, missed, on)
        return kept_segments(
            self, joined, segment.dtype, segment.name, lambda row: metrics(row[SEGMENT_ROWS], row[miss_count.name] or 0)
        )


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
