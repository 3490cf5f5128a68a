"""The check pass: every rule and measure of a suite checked against the sources' schemas.

Names are bound to sources, expressions typed, functions checked, output names decided; every
name or type error of the suite is raised here, located. ``validate`` stops after this pass;
lowering reads only what it returns.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ..checks.anomaly_syntax import MeasureTypes
from ..checks.check_reads import check_reads
from ..checks.check_tree import CompiledCheck, compile_checks
from ..errors import ErrorList, InvalidInput
from ..language.ruletree.nodes import StatementRule
from ..plan.data_types import Schema
from ..rule_kinds import RuleKind
from ..suites.drift_frequencies import with_frequency_sketches
from ..suites.drift_sketches import as_drift_error
from ..suites.suite import RuleSpec, Suite
from ..support.gc_pause import without_cyclic_gc
from ..support.recursion_room import recursion_room
from .accuracy import AccuracyChecker, KeyedAccuracyChecker
from .checked_rules import CheckedQuery, CheckedRowClause, CheckedRule
from .freshness import FreshnessChecker
from .griffin_measures import (
    AccuracyMeasureChecker,
    CompletenessMeasureChecker,
    DuplicationMeasureChecker,
    ProfilingMeasureChecker,
    SchemaConformanceChecker,
    SparkSqlMeasureChecker,
)
from .queries import MeasureChecker, QueryChecker
from .row_clauses import checked_row_clauses, unknown_stated_columns
from .row_rules import CompletenessChecker, DistinctnessChecker, TimelinessChecker, UniquenessChecker
from .rule_checker import RuleChecker
from .validity import ValidityChecker


class SqlChecker(RuleChecker):
    """Spark SQL text runs as the engine reads it: only its details are checked here."""

    kind = RuleKind.SQL

    def check(self) -> CheckedRule:
        return CheckedRule(self.rule)


# the checker of each rule kind (tests hold it to the registry: one for every kind)
CHECKERS: dict[RuleKind, type[RuleChecker]] = {
    cls.kind: cls
    for cls in (
        AccuracyChecker,
        KeyedAccuracyChecker,
        CompletenessChecker,
        DistinctnessChecker,
        UniquenessChecker,
        TimelinessChecker,
        FreshnessChecker,
        ValidityChecker,
        QueryChecker,
        MeasureChecker,
        SqlChecker,
        AccuracyMeasureChecker,
        CompletenessMeasureChecker,
        DuplicationMeasureChecker,
        ProfilingMeasureChecker,
        SchemaConformanceChecker,
        SparkSqlMeasureChecker,
    )
}


@dataclass(frozen=True)
class CheckedSuite:
    """A suite whose rules, measures and checks passed the check pass (in the suite's order)."""

    suite: Suite
    rules: tuple[CheckedRule, ...]
    measures: tuple[CheckedRule, ...]
    checks: tuple[CompiledCheck, ...]
    row_clauses: tuple[CheckedRowClause, ...] = ()


@without_cyclic_gc
def check_suite(suite: Suite, schemas: Mapping[str, Schema], now_ms: int = 0) -> CheckedSuite:
    """Check every rule, measure and check; ``schemas`` holds every source's and view's schema by
    name, ``now_ms`` is the run's time (current_date() and the like are this constant)."""
    errors = ErrorList()  # each rule, measure and check is checked: one error does not hide the next
    with recursion_room():
        rules = _checked(errors, suite.rules, schemas, now_ms)
        with errors.statement():
            suite = with_implied_checks(suite, rules)
        suite = replace(suite, measures=with_frequency_sketches(suite.measures, schemas))
        unknown = unknown_stated_columns(suite.row_clauses, schemas, errors)
        said = {c.measure for c in suite.row_clauses if unknown.intersection(c.stated)}
        measures = _checked(errors, suite.measures, schemas, now_ms, said)
        measure_types = _measure_types(measures)
        checks = tuple(compile_checks(suite, measure_types, schemas, errors))
        with errors.statement():
            check_reads(suite, measure_types)
        clauses = checked_row_clauses(suite.row_clauses, measures, schemas, errors, unknown)
        errors.raise_any()
        return CheckedSuite(suite, rules, measures, checks, clauses)


def _checked(
    errors: ErrorList,
    rules: Sequence[RuleSpec],
    schemas: Mapping[str, Schema],
    now_ms: int,
    said: Collection[str | None] = (),
) -> tuple[CheckedRule, ...]:
    """The ``rules`` (or measures) checked; one in error is left out and its error kept in
    ``errors``, unless it is ``said``: a measure of a property whose unknown column is said there."""
    checked = []
    for rule in rules:
        with errors.statement():
            try:
                checked.append(check_rule(rule, schemas, now_ms))
            except InvalidInput as error:
                if rule.name in said:
                    continue
                raise as_drift_error(error, rule) from None
    return tuple(checked)


def with_implied_checks(suite: Suite, rules: tuple[CheckedRule, ...]) -> Suite:
    """The suite with the checks its rules imply after its own (a freshness rule's ages)."""
    implied = [check for rule in rules for check in rule.implied_checks()]
    if not implied:
        return suite
    names = {check.name for check in suite.checks} | {schema.name for schema in suite.schemas}
    for check in implied:
        if check.name in names:
            raise InvalidInput(
                "DUPLICATE_CHECK",
                f"two checks are named {check.name!r}: a check of the suite and one its rule states",
                location=check.location,
                text=check.expr.text,
                hint="rename the suite's check",
            )
        names.add(check.name)
    return replace(suite, checks=[*suite.checks, *implied])


def _measure_types(measures: tuple[CheckedRule, ...]) -> MeasureTypes:
    """The columns of each measure whose query gryph typed (not Spark SQL text), for the checks."""
    return {
        m.spec.name: tuple((name, expr.dtype) for expr, name in m.items)
        for m in measures
        if isinstance(m, CheckedQuery) and m.grouping is None
    }


def check_rule(rule: RuleSpec, schemas: Mapping[str, Schema], now_ms: int) -> CheckedRule:
    """One rule (or measure) checked by the checker of its kind."""
    kind = RuleKind(rule.kind)
    if kind is RuleKind.ACCURACY and isinstance(rule.body, StatementRule):
        kind = RuleKind.KEYED_ACCURACY  # the older design's statement form
    return CHECKERS[kind](rule, schemas, now_ms).checked()
