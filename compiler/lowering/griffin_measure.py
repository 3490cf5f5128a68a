"""Griffin generation-B measures: what all of them share, and the three that judge each row by a
condition (completeness, schemaConformance, sparkSQL: metrics total, complete, incomplete).

A measure's metric is a map under the measure's name; its record output is the bad rows with
Griffin's ``__status`` column (``bad``), so the rows are those of Griffin's record output whose
status is ``bad``.
"""

from __future__ import annotations

from typing import Any

from ..analysis.checked_rules import CheckedRowCondition
from ..plan import Field, Filter, Literal, Named, Project, Relation, count_all
from ..plan.data_types import STRING, Schema
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Checked, Finisher, RuleLowering, positive
from .query_collector import Results, RowsRef, ValueRef

STATUS = "__status"


class GriffinMeasureLowering(RuleLowering[Checked]):
    """A measure's metric map and its bad records."""

    def bad_records(self, bad_rows: Relation, columns: Schema, bad_ref: ValueRef) -> RowsRef | None:
        """The bad rows' ``columns`` and ``__status``, when the measure has a record output."""
        if self.rule.record_name is None:
            return None
        kept = tuple(Named(Field(c.name, c.dtype), c.name) for c in columns.columns if c.name != STATUS)
        return self.sample(
            Project(bad_rows, (*kept, Named(Literal("bad", STRING), STATUS))), self.rule.name, positive(bad_ref)
        )

    def good_and_bad(self, read: Relation, bad_rows: Relation, bad_ref: ValueRef, names: tuple[str, str]) -> Finisher:
        """Metrics ``total`` (rows of ``read``) and ``names`` (good, bad); the bad rows are the records."""
        total_ref = self.collector.value(read, count_all())
        sample = self.bad_records(bad_rows, read.schema, bad_ref)
        good_name, bad_name = names

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            bad = results.value(bad_ref) or 0
            return self.result(results, {"total": total, good_name: total - bad, bad_name: bad}, bad, sample)

        return finish

    def result(self, results: Results, metrics: dict[str, Any], bad: int, sample: RowsRef | None) -> RuleResult:
        """The metric map (with a metric output) and the record output (with a record output)."""
        writes = [self.write([metrics])] if self.rule.metric is not None else []
        records = [self.record(results, self.rule.name, bad, sample)] if self.rule.record_name else []
        return RuleResult(self.rule.name, self.rule.kind, writes, records)


class RowConditionLowering(GriffinMeasureLowering[CheckedRowCondition]):
    """A measure whose bad rows are those of one relation where a condition holds (completeness,
    schemaConformance, sparkSQL)."""

    kinds = (RuleKind.GRIFFIN_COMPLETENESS, RuleKind.GRIFFIN_SCHEMA_CONFORMANCE, RuleKind.GRIFFIN_SPARK_SQL)

    def lower(self) -> Finisher:
        read = self.read(self.checked.source)
        bad = self.checked.bad
        return self.good_and_bad(
            read, Filter(read, bad), self.collector.value(read, count_all(filter=bad)), ("complete", "incomplete")
        )
