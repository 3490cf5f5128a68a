"""A rule's metrics per segment (`by COLUMN`): its aggregates again, grouped by the column, in one
grouped query per source and column that every segmented rule of the same cap shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plan import Aggregate, Field, Named, Relation, Scalar, Sort, SortKey, count_all
from ..plan.data_types import INTEGER, DataType
from ..results import ResultRow, Segments
from .common import RuleLowering
from .query_collector import GROUP_KEY, GroupedRef, Results

SEGMENT_CAP = 1000  # segments kept without `top N`: the ones with the most rows
SEGMENT_ROWS = "__segment_rows"  # a segment's rows, which order the segments of grouped groups

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


def segments_of_groups(
    lowering: RuleLowering[Any], groups: Relation, key: Field, column: str, rows: Scalar, metrics: dict[str, Scalar]
) -> Callable[[Results], Segments]:
    """Segments of a relation already grouped finer than the segment (a row per segment and
    value, as a duplicates rule counts them; ``key`` the segment's column there, shown as
    ``column``): ``rows``, the segment's source rows from the groups' aggregates, orders and caps
    them; ``metrics`` are aggregates of each segment's groups."""
    measures = (Named(rows, SEGMENT_ROWS), *(Named(expr, name) for name, expr in metrics.items()))
    per_segment = Aggregate(groups, (Named(key, GROUP_KEY),), measures)
    return kept_segments(
        lowering, per_segment, key.dtype, column, lambda row: {name: row[name] or 0 for name in metrics}
    )


def segment_order(key: DataType) -> tuple[SortKey, ...]:
    """The order of a relation of segments (``GROUP_KEY``, ``SEGMENT_ROWS``): as the grouped query
    keeps them, the most rows first, ties by value, NULL first."""
    return (SortKey(Field(SEGMENT_ROWS, INTEGER), ascending=False), SortKey(Field(GROUP_KEY, key)))


def kept_segments(
    lowering: RuleLowering[Any],
    per_segment: Relation,
    key: DataType,
    column: str,
    metrics: Callable[[ResultRow], dict[str, Any]],
) -> Callable[[Results], Segments]:
    """The rule's ``Segments`` from a relation of a row per segment (its value in ``GROUP_KEY``, its
    rows in ``SEGMENT_ROWS``), fetched in the order of ``segment_order`` up to the cap;
    ``metrics`` reads a segment's metrics from its row."""
    cap, location = cap_of(lowering)
    ref = lowering.collector.rows(Sort(per_segment, segment_order(key)), cap + 1)

    def finish(results: Results) -> Segments:
        found = results.rows(ref)
        values = [(row[GROUP_KEY], metrics(row)) for row in found[:cap]]
        return Segments(column, cap, len(found) > cap, values, location)

    return finish
