"""Griffin generation-B measures: what all of them share, and the three that judge each row by a
condition (completeness, schemaConformance, sparkSQL: metrics total, complete, incomplete).

A measure's metric is a map under the measure's name; its record output is the bad rows with
Griffin's ``__status`` column (``bad``), so the rows are those of Griffin's record output whose
status is ``bad``.
"""

from __future__ import annotations

from ..collect import Results, RowsRef, ValueRef
from ..errors import InvalidInput, did_you_mean
from ..griffin_measures import ColumnRef, CompletenessConfig, SchemaConformanceConfig, SparkSqlConfig
from ..plan import Call, Field, Filter, Fn, IsNull, Literal, Named, Project, Read, Relation, Scalar, count_all
from ..plan.scalars import not_, or_all
from ..resolve import Context, Resolver
from ..results import RuleResult
from ..types import BOOLEAN, INTEGER, STRING, Schema
from .common import Finisher, RuleLowering, positive

STATUS = "__status"


def true_only(condition: Scalar) -> Scalar:
    """``condition`` with NULL read as false (Griffin's ``when(cond, ...).otherwise(...)``)."""
    return Call(Fn.COALESCE, (condition, Literal(False, BOOLEAN)), BOOLEAN)


class GriffinMeasureLowering(RuleLowering):
    """Columns named in a measure's config, its metric map and its bad records."""

    def column(self, ref: ColumnRef, source: str) -> Field:
        """A column a config names (Griffin matches names exactly), or an error where it is named."""
        schema = self.schema(source)
        column = schema.get(ref.name)
        if column is None:
            raise InvalidInput(
                "UNKNOWN_COLUMN",
                f"measure {self.rule.name!r}: {source} has no column {ref.name!r}",
                location=ref.location,
                text=ref.name,
                hint=did_you_mean(ref.name, schema.names),
            )
        return Field(column.name, column.dtype)

    def condition(self, source: str, expr) -> Scalar:
        """A Spark SQL condition over the columns of ``source``, type-checked."""
        return Resolver(self.source_scope(source)).condition(expr, Context(clause="measure expr"))

    def bad_records(self, bad_rows: Relation, columns: Schema, bad_ref: ValueRef) -> RowsRef | None:
        """The bad rows' ``columns`` and ``__status``, when the measure has a record output."""
        if self.rule.record_name is None:
            return None
        kept = tuple(Named(Field(c.name, c.dtype), c.name) for c in columns.columns if c.name != STATUS)
        return self.sample(
            Project(bad_rows, kept + (Named(Literal("bad", STRING), STATUS),)), self.rule.name, positive(bad_ref)
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

    def result(self, results: Results, metrics: dict, bad: int, sample: RowsRef | None) -> RuleResult:
        """The metric map (with a metric output) and the record output (with a record output)."""
        writes = [self.write([metrics])] if self.rule.metric is not None else []
        records = [self.record(results, self.rule.name, bad, sample)] if self.rule.record_name else []
        return RuleResult(self.rule.name, self.rule.kind, writes, records)


class RowConditionLowering(GriffinMeasureLowering):
    """A measure whose bad rows are those of one relation where a condition holds."""

    def relation(self) -> Read:
        return self.read(self.rule.source)

    def bad(self, read: Read) -> Scalar:
        raise NotImplementedError

    def lower(self) -> Finisher:
        read = self.relation()
        bad = self.bad(read)
        return self.good_and_bad(
            read, Filter(read, bad), self.collector.value(read, count_all(filter=bad)), ("complete", "incomplete")
        )


class CompletenessMeasureLowering(RowConditionLowering):
    """``expr`` says what a complete row is; a row where it is false or NULL is incomplete."""

    kinds = ("griffin.completeness",)

    def bad(self, read: Read) -> Scalar:
        return not_(true_only(self.condition(self.rule.source, self.body_as(CompletenessConfig).condition)))


class SparkSqlMeasureLowering(RowConditionLowering):
    """The rows of a Spark SQL query; ``bad.record.definition`` true marks a bad one (NULL: good)."""

    kinds = ("griffin.sparksql",)

    def relation(self) -> Read:
        return self.read(self.body_as(SparkSqlConfig).view)

    def bad(self, read: Read) -> Scalar:
        config = self.body_as(SparkSqlConfig)
        return true_only(self.condition(config.view, config.bad))


class SchemaConformanceLowering(RowConditionLowering):
    """A row is bad when a column's value, written as text, does not read as its type (NULL too).

    Text reads as Spark's ``try_cast`` reads it, on both engines; an integer type narrower than
    64 bits also refuses numbers outside its range, as Spark's cast does.
    """

    kinds = ("griffin.schemaconformance",)

    def bad(self, read: Read) -> Scalar:
        terms: list[Scalar] = []
        for check in dict.fromkeys(self.body_as(SchemaConformanceConfig).checks):
            text = Resolver.coerce(self.column(check.column, self.rule.source), STRING)
            typed = Resolver.coerce(text, check.dtype)
            terms.append(IsNull(typed))
            if check.range is not None:
                low, high = (Literal(bound, INTEGER) for bound in check.range)
                terms.append(Call(Fn.LT, (typed, low), BOOLEAN))
                terms.append(Call(Fn.GT, (typed, high), BOOLEAN))
        return true_only(or_all(terms))
