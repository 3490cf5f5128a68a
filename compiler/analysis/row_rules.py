"""Checkers of the rules that judge one source's rows by selected values: completeness,
distinctness, uniqueness and timeliness."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar, cast

from ..errors import with_article
from ..language.ruletree.nodes import SelectItem, SelectList, located
from ..plan import Call, Cast, Field, Fn, In, IsNull, Literal, RLike, Scalar, and_all, not_, or_all
from ..plan.data_types import INTEGER, STRING, TIMESTAMP, Kind, Schema
from ..rule_kinds import RuleKind
from ..spark_dialect.regex_syntax import REGEX_HINT, pattern_problem
from .checked_rules import (
    CheckedCompleteness,
    CheckedDistinctness,
    CheckedDuplicates,
    CheckedTimeliness,
    CheckedUniqueness,
)
from .resolve import Resolver, Side
from .rule_checker import RuleChecker

Selections = list[tuple[Scalar, str, SelectItem]]
Counted = TypeVar("Counted", bound=CheckedDuplicates)


class CompletenessChecker(RuleChecker):
    """A row is incomplete when any selection is NULL or, with Griffin's ``error.confs``, when any
    configured column matches its regex or its enumeration (``hive_none`` meaning NULL)."""

    kind = RuleKind.COMPLETENESS
    segmented = True

    def check(self) -> CheckedCompleteness:
        source = self.rule.source
        schema = self.schema(source)
        assert source is not None  # the schema of None is an error
        resolver = Resolver(self.source_scope(source))
        selections = self.selections(self.body_as(SelectList).items, resolver)
        confs = self.rule.details.get("error.confs")
        if confs:
            assert isinstance(confs, list)  # the loaders read error.confs as a list of maps
            incomplete = or_all([self._error_condition(conf, selections, schema) for conf in confs])
        else:
            incomplete = or_all([IsNull(expr) for expr, _, _ in selections])
        return CheckedCompleteness(self.rule, source, incomplete, self.segment_field(resolver))

    def _error_condition(self, conf: dict[str, object], selections: Selections, schema: Schema) -> Scalar:
        """Griffin's error.confs entry: ``{column.name, type: regex|enumeration, values}``."""
        column = conf.get("column.name")
        by_alias = {name: expr for expr, name, _ in selections}
        value: Scalar
        if isinstance(column, str) and column in by_alias:
            value = by_alias[column]
        elif isinstance(column, str) and (found := schema.get(column)) is not None:
            value = Field(column, found.dtype)
        else:
            raise self.error(
                "UNKNOWN_COLUMN",
                f"error.confs names unknown column {column!r}",
                hint=f"columns: {', '.join(schema.names)}",
            )
        text = value if value.dtype.kind in (Kind.STRING, Kind.NULL) else Cast(value, STRING)
        kind = str(conf.get("type", "")).lower()
        values = [str(v) for v in cast(Iterable[object], conf.get("values") or [])]
        if kind == "regex":
            if len(values) != 1:
                raise self.error("BAD_ERROR_CONF", "a regex error.conf takes exactly one value")
            if problem := pattern_problem(values[0]):
                raise self.error("BAD_REGEX", f"error.confs pattern {values[0]!r}: {problem}", hint=REGEX_HINT)
            return RLike(text, Literal(values[0], STRING))
        if kind == "enumeration":
            terms: list[Scalar] = []
            listed = [v for v in values if v != "hive_none"]
            if listed:
                terms.append(In(text, tuple(Literal(v, STRING) for v in listed)))
            if "hive_none" in values:
                terms.append(IsNull(value))
            if not terms:
                raise self.error("BAD_ERROR_CONF", "an enumeration error.conf needs values")
            return or_all(terms)
        raise self.error("BAD_ERROR_CONF", f"error.confs type {kind!r} is not regex or enumeration")


class DuplicatesChecker(RuleChecker):
    """What distinctness and uniqueness share: the selected values of the source, and of a
    target when the rule has one."""

    segmented = True

    def keys(self) -> tuple[str, tuple[Scalar, ...], tuple[str, ...]]:
        """The rule's source, its selected values and their output names."""
        source = self.rule.source
        self.schema(source)
        assert source is not None  # the schema of None is an error
        selections = self.selections(self.body_as(SelectList).items, Resolver(self.source_scope(source)))
        return source, tuple(expr for expr, _, _ in selections), tuple(name for _, name, _ in selections)

    def checked_as(self, kind: type[Counted]) -> Counted:
        """The checked rule of this checker's kind: its values, its target's, its segment."""
        source, keys, names, target, target_keys = self.with_target()
        return kind(self.rule, source, keys, names, target, target_keys, self.segment(target))

    def segment(self, target: str | None) -> Field | None:
        """The `by COLUMN` of a rule counting values within its source (None without one)."""
        segment = self.rule.segment
        if segment is not None and target is not None:
            raise located(
                "UNSUPPORTED",
                f"{with_article(self.kind)} rule against another source ({target}) is not split by segment",
                segment,
                "count the values within its own source to split them `by COLUMN`",
            )
        assert self.rule.source is not None  # keys() read its schema
        return self.segment_field(Resolver(self.source_scope(self.rule.source)))

    def with_target(self) -> tuple[str, tuple[Scalar, ...], tuple[str, ...], str | None, tuple[Scalar, ...]]:
        """``keys()``, then the target (None: none, or the source itself) and its selected values."""
        source, keys, names = self.keys()
        self.duration("window")  # read by a stream (suites/kept_rows.py): checked here, located
        target = self.rule.target or source
        if target == source:
            return source, keys, names, None, ()
        # the same selections, read from the target: the source's name now means the target
        scope = self.scope_for([Side(target, self.schema(target))], {"source": target, "target": target})
        scope.sides[source] = scope.sides[target]
        target_keys = [expr for expr, _, _ in self.selections(self.body_as(SelectList).items, Resolver(scope))]
        return source, keys, names, target, tuple(target_keys)


class DistinctnessChecker(DuplicatesChecker):
    kind = RuleKind.DISTINCTNESS

    def check(self) -> CheckedDistinctness:
        return self.checked_as(CheckedDistinctness)


class UniquenessChecker(DuplicatesChecker):
    kind = RuleKind.UNIQUENESS

    def check(self) -> CheckedUniqueness:
        return self.checked_as(CheckedUniqueness)


class TimelinessChecker(RuleChecker):
    kind = RuleKind.TIMELINESS
    segmented = True

    def check(self) -> CheckedTimeliness:
        source = self.rule.source
        self.schema(source)
        assert source is not None  # the schema of None is an error
        resolver = Resolver(self.source_scope(source))
        selections = self.selections(self.body_as(SelectList).items, resolver)
        segment = self.segment_field(resolver)  # before the times are judged: its name is checked with theirs
        if len(selections) not in (1, 2):
            raise self.error(
                "WRONG_ARITY",
                "timeliness takes a begin time and an optional end time",
                hint="e.g. created_ts, shipped_ts",
            )
        begin = epoch_millis(selections[0][0], selections[0][2], self.kind)
        end = (
            epoch_millis(selections[1][0], selections[1][2], self.kind)
            if len(selections) == 2
            else Literal(self.now_ms, INTEGER)
        )
        # a time in milliseconds is NULL exactly when the time is: test the columns, not the conversions
        valid = and_all([not_(IsNull(expr)) for expr, _, _ in selections])
        threshold = self.duration("threshold")
        step = self.duration("step.size")
        return CheckedTimeliness(self.rule, source, begin, end, valid, threshold, step, self._fractions(), segment)

    def _fractions(self) -> tuple[float, ...]:
        values = self.rule.details.get("percentile.values")
        if values in (None, ""):
            return ()
        listed = values if isinstance(values, (list, tuple)) else [values]
        out = []
        for value in listed:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise self.detail_error(
                    "percentile.values", "BAD_DETAIL", f"percentile.values must be fractions in [0, 1], got {value!r}"
                )
            out.append(float(value))
        return tuple(out)


def epoch_millis(expr: Scalar, node: SelectItem, kind: RuleKind) -> Scalar:
    """A selected time of a ``kind`` rule in epoch milliseconds: a timestamp's or a date's (at
    midnight UTC), or an integer taken as epoch milliseconds already."""
    found = expr.dtype.kind
    if found is Kind.INTEGER:
        return expr
    if found in (Kind.TIMESTAMP, Kind.DATE):
        value = expr if found is Kind.TIMESTAMP else Cast(expr, TIMESTAMP)
        return Call(Fn.EPOCH_MILLIS, (value,), INTEGER)
    raise located(
        "TYPE_MISMATCH",
        f"{with_article(kind)} time must be a timestamp, a date or epoch milliseconds, got {expr.dtype}",
        node,
        "cast it: cast(x as timestamp)",
    )
