"""A rule's metrics per segment (`by COLUMN`): its aggregates again, grouped by the column, in one
grouped query per source and column that every segmented rule of the same cap shares; aggregates
of a relation derived from the source (an accuracy rule's misses, a uniqueness rule's counted
values) are joined to that query's segments, so the segments are the source's, read once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plan import AggregateCall, Field, Relation, Scalar, count_all
from ..results import Segments
from .common import RuleLowering
from .query_collector import GroupedRef, Results

SEGMENT_CAP = 1000  # segments kept without `top N`: the ones with the most rows

# reads one grouped value of the segment at hand
SegmentValue = Callable[[GroupedRef], Any]


class SegmentRefs:
    """The grouped values one rule asks for, and its ``Segments`` once they are known."""

    def __init__(self, lowering: RuleLowering[Any], relation: Relation, column: Field) -> None:
        self.collector = lowering.collector
        self.relation = relation
        self.column = column
        self.cap, self.location = cap_of(lowering)

    def value(self, expr: Scalar) -> GroupedRef:
        # one group more than the cap tells a capped column from one of exactly ``cap`` values
        return self.collector.grouped_value(self.relation, self.column, expr, self.cap + 1)

    def value_from(self, other: Relation, other_key: Scalar, call: AggregateCall) -> GroupedRef:
        """``call`` over the rows of ``other`` (derived from the rule's relation: its misses, its
        counted values) of each segment, ``other_key`` the segment's column there; None for a
        segment ``other`` has no rows of."""
        return self.collector.grouped_value_from(self.relation, self.column, other, other_key, call, self.cap + 1)

    def finish(self, results: Results, metrics: Callable[[SegmentValue], dict[str, Any]]) -> Segments:
        """Each segment's metrics, the most rows first; ``metrics`` reads the segment's values
        through the getter it is given."""
        read: dict[GroupedRef, list[tuple[Any, Any]]] = {}

        def getter(index: int) -> SegmentValue:
            def get(ref: GroupedRef) -> Any:
                if ref not in read:
                    read[ref] = results.groups(ref)
                return read[ref][index][1]

            return get

        keys = [key for key, _ in results.groups(self.value(count_all()))]
        values = [(key, metrics(getter(index))) for index, key in enumerate(keys[: self.cap])]
        return Segments(self.column.name, self.cap, len(keys) > self.cap, values, self.location)


def cap_of(lowering: RuleLowering[Any]) -> tuple[int, str]:
    """The rule's cap on segments and where its `by` stands."""
    segment = lowering.rule.segment
    assert segment is not None  # the check pass gives a segment column only for a `by`
    return segment.top or SEGMENT_CAP, str(segment.location)
