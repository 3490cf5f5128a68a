"""Checkers of Griffin's generation-B measures: the columns their configs name (matched exactly,
as Griffin matches them), their conditions type-checked, and what marks a bad row."""

from __future__ import annotations

from ..errors import InvalidInput, did_you_mean
from ..language.ruletree.nodes import Expr
from ..plan import Call, Field, Fn, IsNull, Literal, Named, Scalar, coerce, free_prefix
from ..plan.data_types import BOOLEAN, INTEGER, NULL, STRING
from ..plan.scalars import not_, or_all
from ..rule_kinds import RuleKind
from ..suites.griffin_measure_specs import (
    AccuracyConfig,
    ColumnRef,
    CompletenessConfig,
    DuplicationConfig,
    ProfilingConfig,
    SchemaConformanceConfig,
    SparkSqlConfig,
)
from .checked_rules import (
    CheckedMeasureAccuracy,
    CheckedMeasureDuplication,
    CheckedMeasureProfiling,
    CheckedRowCondition,
)
from .equality import true_only
from .resolve import Context, Resolver
from .rule_checker import RuleChecker


class GriffinMeasureChecker(RuleChecker):
    """Columns named in a measure's config."""

    def column(self, ref: ColumnRef, source: str | None) -> Field:
        """A column a config names; one not there is an error where it is named."""
        schema = self.schema(source)
        column = schema.get(ref.name)
        if column is None:  # reported with the measure's other unknown columns, read as NULL's type until then
            self.unknown.add(
                InvalidInput(
                    "UNKNOWN_COLUMN",
                    f"measure {self.rule.name!r}: {source} has no column {ref.name!r}",
                    location=ref.location,
                    text=ref.name,
                    hint=did_you_mean(ref.name, schema.names),
                )
            )
            return Field(ref.name, NULL)
        return Field(column.name, column.dtype)

    def condition(self, source: str, expr: Expr) -> Scalar:
        """A Spark SQL condition over the columns of ``source``, type-checked."""
        return Resolver(self.source_scope(source)).condition(expr, Context(clause="measure expr"))

    def source(self) -> str:
        """The measure's source, known to the schemas."""
        source = self.rule.source
        self.schema(source)
        assert source is not None  # the schema of None is an error
        return source


class CompletenessMeasureChecker(GriffinMeasureChecker):
    """``expr`` says what a complete row is; a row where it is false or NULL is incomplete."""

    kind = RuleKind.GRIFFIN_COMPLETENESS

    def check(self) -> CheckedRowCondition:
        source = self.source()
        complete = self.condition(source, self.body_as(CompletenessConfig).condition)
        return CheckedRowCondition(self.rule, source, not_(true_only(complete)))


class SparkSqlMeasureChecker(GriffinMeasureChecker):
    """The rows of a Spark SQL query; ``bad.record.definition`` true marks a bad one (NULL: good)."""

    kind = RuleKind.GRIFFIN_SPARK_SQL

    def check(self) -> CheckedRowCondition:
        config = self.body_as(SparkSqlConfig)
        self.schema(config.view)
        return CheckedRowCondition(self.rule, config.view, true_only(self.condition(config.view, config.bad)))


class SchemaConformanceChecker(GriffinMeasureChecker):
    """A row is bad when a column's value, written as text, does not read as its type (NULL too).

    Text reads as Spark's ``try_cast`` reads it, on both engines; an integer type narrower than
    64 bits also refuses numbers outside its range, as Spark's cast does.
    """

    kind = RuleKind.GRIFFIN_SCHEMA_CONFORMANCE

    def check(self) -> CheckedRowCondition:
        source = self.source()
        terms: list[Scalar] = []
        for check in dict.fromkeys(self.body_as(SchemaConformanceConfig).checks):
            text = coerce(self.column(check.column, source), STRING)
            typed = coerce(text, check.dtype)
            terms.append(IsNull(typed))
            if check.range is not None:
                low, high = (Literal(bound, INTEGER) for bound in check.range)
                terms.append(Call(Fn.LT, (typed, low), BOOLEAN))
                terms.append(Call(Fn.GT, (typed, high), BOOLEAN))
        return CheckedRowCondition(self.rule, source, true_only(or_all(terms)))


class AccuracyMeasureChecker(GriffinMeasureChecker):
    """Pairs of source and reference columns, each pair comparable (text compares as text)."""

    kind = RuleKind.GRIFFIN_ACCURACY

    def check(self) -> CheckedMeasureAccuracy:
        source, reference = self.source(), self.rule.target
        self.schema(reference)
        assert reference is not None  # the schema of None is an error
        prefix = free_prefix("__ref_", self.schema(source))
        resolver = Resolver(self.scope_for([]))
        resolver.strings_compare_as_text = True
        equalities: list[Scalar] = []
        source_values: list[Field] = []
        reference_keys: dict[str, Named] = {}
        for source_ref, ref_ref in dict.fromkeys(self.body_as(AccuracyConfig).pairs):
            value = self.column(source_ref, source)
            ref_value = self.column(ref_ref, reference)
            reference_keys[ref_value.name] = Named(ref_value, prefix + ref_value.name)
            renamed = Field(prefix + ref_value.name, ref_value.dtype)
            try:
                left, right = resolver.unify(value, renamed, None, "accuracy")
            except InvalidInput as error:
                raise InvalidInput(
                    error.code,
                    f"measure {self.rule.name!r}: {source_ref.name} ({value.dtype}) "
                    f"cannot be compared with {ref_ref.name} ({ref_value.dtype})",
                    location=source_ref.location,
                    text=source_ref.name,
                    hint=error.hint,
                ) from None
            equalities.append(Call(Fn.EQ, (left, right), BOOLEAN))
            source_values.append(value)
        return CheckedMeasureAccuracy(
            self.rule, source, reference, tuple(equalities), tuple(reference_keys.values()), tuple(source_values)
        )


class DuplicationMeasureChecker(GriffinMeasureChecker):
    """Key columns (none: every column) and the flag of a bad row."""

    kind = RuleKind.GRIFFIN_DUPLICATION

    def check(self) -> CheckedMeasureDuplication:
        source = self.source()
        config = self.body_as(DuplicationConfig)
        fields = [self.column(ref, source) for ref in config.columns] or [
            Field(c.name, c.dtype) for c in self.schema(source).columns
        ]
        return CheckedMeasureDuplication(self.rule, source, tuple(fields), config.bad)


class ProfilingMeasureChecker(GriffinMeasureChecker):
    """The columns profiled (none named: every column)."""

    kind = RuleKind.GRIFFIN_PROFILING

    def check(self) -> CheckedMeasureProfiling:
        source = self.source()
        config = self.body_as(ProfilingConfig)
        named = {self.column(ref, source).name for ref in config.columns}
        columns = tuple(Field(c.name, c.dtype) for c in self.schema(source).columns if not named or c.name in named)
        return CheckedMeasureProfiling(self.rule, source, columns, config.approximate_name, config.round_scale)
