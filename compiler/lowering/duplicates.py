"""Uniqueness and distinctness: counting values that occur more than once.

Both group the source by the selected values (NULL is a value of its own, as in SQL GROUP BY).
Distinctness counts the groups; uniqueness counts the values that occur exactly once in the
target (the source itself by default; against another target, values are compared as
accuracy compares them). ``duplication.array`` lists, per duplicate count ``dup``, the number
``num`` of values duplicated that many times.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..analysis.checked_rules import CheckedDistinctness, CheckedDuplicates, CheckedUniqueness
from ..analysis.equality import compared_as_text, comparison_key
from ..plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Distinct,
    Field,
    Filter,
    Fn,
    IfThen,
    IsNull,
    Join,
    JoinKind,
    Literal,
    Named,
    Project,
    Read,
    Relation,
    and_all,
    count_all,
    free_prefix,
    grouped_counts,
    key_histogram,
)
from ..plan.data_types import BOOLEAN, INTEGER
from ..plan.histograms import COUNT, VALUES
from ..results import MetricWrite, RuleResult, Segments
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering
from .query_collector import Results
from .segments import SegmentRefs

Duplicates = TypeVar("Duplicates", bound=CheckedDuplicates)


def _unique(histogram: dict[int | None, int]) -> int:
    """Values the target holds at most once (a NULL count: not there at all)."""
    return sum(values for n, values in histogram.items() if n is None or n <= 1)


class _DuplicateLowering(RuleLowering[Duplicates]):
    """The grouping both rule types share."""

    def keys(self, prefix: str = "__key") -> list[Named]:
        """The selected values of the source as named keys."""
        return [Named(expr, f"{prefix}{i}") for i, expr in enumerate(self.checked.keys)]

    def dup_records(self, counted: Relation, keys: list[Named], names: list[str], count: Field) -> Relation:
        """The duplicated values with their ``dup`` count, as record samples show them."""
        duplicated = Filter(counted, Call(Fn.GT, (count, Literal(1, INTEGER)), BOOLEAN))
        columns = [Named(Field(k.name, k.expr.dtype), n) for k, n in zip(keys, names, strict=True)]
        columns.append(Named(Call(Fn.SUBTRACT, (count, Literal(1, INTEGER)), INTEGER), self.name_of("dup")))
        return Project(duplicated, tuple(columns))

    def finisher(
        self,
        read: Relation,
        counted: Relation,
        keys: list[Named],
        names: list[str],
        second: tuple[str, Callable[[dict[int | None, int]], int]],
        per_segment: AggregateCall,
    ) -> Finisher:
        """``total``, the rule's own count, the duplication array and the records; with `by
        COLUMN`, each segment's ``total`` and own count (``per_segment``: that count as an
        aggregate of the segment's counted values).

        Everything but ``total`` comes from one small histogram of the grouped values: how many
        values occur each number of times (so one query per set of keys, whatever is asked).
        """
        count = Field(COUNT, INTEGER)
        by_segment = self._segments(read, keys, second[0], per_segment)
        total_ref = self.collector.value(read, count_all())
        histogram_ref = self.collector.rows(key_histogram(counted))
        array_name = self.rule.details.get("duplication.array")

        def read_histogram(results: Results) -> dict[int | None, int]:
            return {row[COUNT]: row[VALUES] for row in results.rows(histogram_ref)}

        sample_ref = self.sample(
            self.dup_records(counted, keys, names, count),
            "dupRecords",
            lambda results: any((n or 0) > 1 for n in read_histogram(results)),
        )
        total_name, dup_name, num_name = self.name_of("total"), self.name_of("dup"), self.name_of("num")
        second_name, second_count = second

        def finish(results: Results) -> RuleResult:
            histogram = read_histogram(results)
            duplicated = sorted((n, values) for n, values in histogram.items() if n is not None and n > 1)
            row = {total_name: results.value(total_ref) or 0, second_name: second_count(histogram)}
            writes = [MetricWrite(name, [{name: value}], "entries") for name, value in row.items()]
            if array_name:
                writes.append(
                    MetricWrite(
                        str(array_name), [{dup_name: n - 1, num_name: values} for n, values in duplicated], "array"
                    )
                )
            count_of_duplicated = sum(values for _, values in duplicated)
            records = [self.record(results, "dupRecords", count_of_duplicated, sample_ref)]
            segments = None if by_segment is None else by_segment(results)
            return RuleResult(self.rule.name, self.rule.kind, writes, records, segments=segments)

        return finish

    def counted(self, read: Relation, keys: list[Named]) -> Relation:
        """Each value of ``keys`` with its rows (``__count``). With `by COLUMN`, summed from the
        counts per segment and value, which the segments read too: one grouping of the source."""
        if self.checked.segment is None:
            return grouped_counts(read, tuple(keys))
        fields = tuple(Named(Field(k.name, k.expr.dtype), k.name) for k in keys)
        summed = AggregateCall(AggFn.SUM, (Field(COUNT, INTEGER),), INTEGER)
        return Aggregate(self._segment_counts(read, keys)[0], fields, (Named(summed, COUNT),))

    def _segment_counts(self, read: Relation, keys: list[Named]) -> tuple[Relation, Field]:
        """The rows of each segment and value (``__count``), and the segment's column there."""
        segment = self.checked.segment
        assert segment is not None  # asked only `by COLUMN`
        key = Field(free_prefix("__segment", read.schema), segment.dtype)
        return grouped_counts(read, (Named(segment, key.name), *keys)), key

    def _segments(
        self, read: Relation, keys: list[Named], second_name: str, second: AggregateCall
    ) -> Callable[[Results], Segments] | None:
        """Each segment's ``total`` (its rows, in the source's grouped query) and ``second`` (an
        aggregate of the segment's counted values)."""
        if self.checked.segment is None:
            return None
        segments = SegmentRefs(self, read, self.checked.segment)
        total_ref = segments.value(count_all())
        counted, key = self._segment_counts(read, keys)
        second_ref = segments.value_from(counted, key, second)
        names = (self.name_of("total"), second_name)
        return lambda results: segments.finish(
            results, lambda get: dict(zip(names, (get(total_ref), get(second_ref) or 0), strict=True))
        )


class DistinctnessLowering(_DuplicateLowering[CheckedDistinctness]):
    kinds = (RuleKind.DISTINCTNESS,)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        keys, names = self.keys(), list(self.checked.names)
        if self.checked.target is not None:
            return self._against_older(read, keys, names, self.checked.target)
        counted = self.counted(read, keys)
        distinct = (self.name_of("distinct"), lambda histogram: sum(histogram.values()))
        return self.finisher(read, counted, keys, names, distinct, count_all())

    def _against_older(self, read: Read, keys: list[Named], names: list[str], older: str) -> Finisher:
        """Griffin's streaming distinctness: the batch's values against a stream's earlier rows.

        A value the earlier rows do not hold is distinct, and its ``dup`` is its repeats in the
        batch; a value they hold is not, and every one of its batch rows is a duplicate (``dup``
        one more); ``accu_dup`` adds its earlier rows. Griffin's example: new [A, A, B, B, C, D]
        against old [A, A, B, C] gives dup A=2, B=2, C=1, D=0 and accu_dup A=3, B=2, C=1, D=0,
        one distinct value (D).
        """
        batch = Field("__in_batch", INTEGER)
        counted = Project(
            grouped_counts(read, tuple(keys)),
            (*(Named(Field(k.name, k.expr.dtype), k.name) for k in keys), Named(Field(COUNT, INTEGER), batch.name)),
        )
        joined = _counted_in(self, counted, keys, older)  # COUNT: the earlier rows holding it (NULL: none)
        earlier = Field(COUNT, INTEGER)
        new = IsNull(earlier)
        repeats = Call(Fn.SUBTRACT, (batch, Literal(1, INTEGER)), INTEGER)
        dup = IfThen(((new, repeats),), batch, INTEGER)
        accu_dup = IfThen(((new, repeats),), Call(Fn.ADD, (repeats, earlier), INTEGER), INTEGER)
        dup_name, accu_name = self.name_of("dup"), str(self.rule.details.get("accu_dup") or "accu_dup")
        informed = Project(
            joined,
            (
                *(Named(Field(k.name, k.expr.dtype), n) for k, n in zip(keys, names, strict=True)),
                Named(dup, dup_name),
                Named(accu_dup, accu_name),
                Named(new, "__new"),
            ),
        )
        dup_field, new_field = Field(dup_name, INTEGER), Field("__new", BOOLEAN)
        total_ref = self.collector.value(read, count_all())
        outcomes_ref = self.collector.rows(
            Aggregate(informed, (Named(dup_field, "dup"), Named(new_field, "new")), (Named(count_all(), "values"),))
        )
        has_dups = Call(Fn.GT, (dup_field, Literal(0, INTEGER)), BOOLEAN)
        shown = tuple(Named(Field(c.name, c.dtype), c.name) for c in informed.schema.columns if c.name != "__new")
        records = Project(Filter(informed, has_dups), shown)
        sample_ref = self.sample(
            records, "dupRecords", lambda results: any(row["dup"] > 0 for row in results.rows(outcomes_ref))
        )
        names_out = {key: self.name_of(key) for key in ("total", "distinct", "num")}
        array_name = self.rule.details.get("duplication.array")

        def finish(results: Results) -> RuleResult:
            outcomes = results.rows(outcomes_ref)
            by_dup: dict[int, int] = {}
            for row in outcomes:
                if row["dup"] > 0:
                    by_dup[row["dup"]] = by_dup.get(row["dup"], 0) + row["values"]
            row = {
                names_out["total"]: results.value(total_ref) or 0,
                names_out["distinct"]: sum(r["values"] for r in outcomes if r["new"]),
            }
            writes = [MetricWrite(name, [{name: value}], "entries") for name, value in row.items()]
            if array_name:
                array = [{dup_name: n, names_out["num"]: values} for n, values in sorted(by_dup.items())]
                writes.append(MetricWrite(str(array_name), array, "array"))
            records_out = [self.record(results, "dupRecords", sum(by_dup.values()), sample_ref)]
            return RuleResult(self.rule.name, self.rule.kind, writes, records_out)

        return finish


class UniquenessLowering(_DuplicateLowering[CheckedUniqueness]):
    kinds = (RuleKind.UNIQUENESS,)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        keys, names = self.keys(), list(self.checked.names)
        target = self.checked.target
        if target is None:
            counted = self.counted(read, keys)
        else:
            # distinct source values, each with how often the target holds it (NULL: never)
            joined = _counted_in(self, Distinct(Project(read, tuple(keys))), keys, target)
            counted = Project(
                joined,
                (*(Named(Field(k.name, k.expr.dtype), k.name) for k in keys), Named(Field(COUNT, INTEGER), COUNT)),
            )
        once = count_all(filter=Call(Fn.EQ, (Field(COUNT, INTEGER), Literal(1, INTEGER)), BOOLEAN))
        return self.finisher(read, counted, keys, names, (self.name_of("unique"), _unique), once)


def _counted_in(lowering: _DuplicateLowering[Any], values: Relation, keys: list[Named], target: str) -> Relation:
    """``values`` (holding the ``keys`` columns) joined with how many rows of ``target`` hold each
    (``__count``, NULL when none), values compared as accuracy compares them."""
    target_read = lowering.read(target)
    prefix = free_prefix("__tkey", values.schema)
    target_values = lowering.checked.target_keys
    as_text = [compared_as_text(k.expr, t) for k, t in zip(keys, target_values, strict=True)]
    # group the target by what the comparison sees, so each source value meets one group
    target_keys = [
        Named(comparison_key(t, text), f"{prefix}{i}")
        for i, (t, text) in enumerate(zip(target_values, as_text, strict=True))
    ]
    target_counts = grouped_counts(target_read, tuple(target_keys))
    on = and_all(
        [
            Call(
                Fn.EQ_NULL_SAFE,
                (comparison_key(Field(k.name, k.expr.dtype), text), Field(t.name, t.expr.dtype)),
                BOOLEAN,
            )
            for k, t, text in zip(keys, target_keys, as_text, strict=True)
        ]
    )
    return Join(JoinKind.LEFT, values, target_counts, on)
