"""Uniqueness and distinctness: counting values that occur more than once.

Both group the source by the selected values (NULL is a value of its own, as in SQL GROUP BY).
Distinctness counts the groups; uniqueness counts the values that occur exactly once in the
target (the source itself by default; against another target, values are compared as
accuracy compares them). ``duplication.array`` lists, per duplicate count ``dup``, the number
``num`` of values duplicated that many times.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..analysis.checked_rules import CheckedDistinctness, CheckedDuplicates, CheckedUniqueness
from ..analysis.equality import compared_as_text, comparison_key
from ..plan import (
    Call,
    Distinct,
    Field,
    Filter,
    Fn,
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
from ..results import MetricWrite, RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher, RuleLowering
from .query_collector import Results

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
    ) -> Finisher:
        """``total``, the rule's own count, the duplication array and the records.

        Everything but ``total`` comes from one small histogram of the grouped values: how many
        values occur each number of times (so one query per set of keys, whatever is asked).
        """
        count = Field(COUNT, INTEGER)
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
            return RuleResult(self.rule.name, self.rule.kind, writes, records)

        return finish


class DistinctnessLowering(_DuplicateLowering[CheckedDistinctness]):
    kinds = (RuleKind.DISTINCTNESS,)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        keys, names = self.keys(), list(self.checked.names)
        counted = grouped_counts(read, tuple(keys))
        return self.finisher(
            read, counted, keys, names, (self.name_of("distinct"), lambda histogram: sum(histogram.values()))
        )


class UniquenessLowering(_DuplicateLowering[CheckedUniqueness]):
    kinds = (RuleKind.UNIQUENESS,)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        keys, names = self.keys(), list(self.checked.names)
        target = self.checked.target
        if target is None:
            counted: Relation = grouped_counts(read, tuple(keys))
        else:
            counted = self._against_target(read, keys, target)
        return self.finisher(read, counted, keys, names, (self.name_of("unique"), _unique))

    def _against_target(self, read: Read, keys: list[Named], target: str) -> Relation:
        """Distinct source values, each with how often the target holds it (NULL: never)."""
        target_read = self.read(target)
        prefix = free_prefix("__tkey", read.schema)
        target_values = self.checked.target_keys
        as_text = [compared_as_text(k.expr, t) for k, t in zip(keys, target_values, strict=True)]
        # group the target by what the comparison sees, so each source value meets one group
        target_keys = [
            Named(comparison_key(t, text), f"{prefix}{i}")
            for i, (t, text) in enumerate(zip(target_values, as_text, strict=True))
        ]
        source_values = Distinct(Project(read, tuple(keys)))
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
        joined = Join(JoinKind.LEFT, source_values, target_counts, on)
        return Project(
            joined,
            (*tuple(Named(Field(k.name, k.expr.dtype), k.name) for k in keys), Named(Field(COUNT, INTEGER), COUNT)),
        )
