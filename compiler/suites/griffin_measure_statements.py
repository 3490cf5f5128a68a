"""``griffin TYPE NAME on SOURCE[, REF]: ...``: a Griffin generation-B measure written in a native suite,
read into the same rule as its job config (compiler/griffin/measures.py), so it gives the same metrics.
``gryph export odcs`` writes a config's measures so (docs/griffin.md, "Generation B in a suite").

Each type reads its items and details as its config: ``completeness`` one condition (the complete rows);
``duplication`` and ``profiling`` columns (``*``: every column); ``accuracy`` ``source.col = ref.col``
pairs; ``schemaConformance`` ``cast(col as type)`` items; ``sparkSQL`` the query as a string. Details:
Griffin's config keys (``bad.record.definition``, ``approx.distinct.count``, ``round.scale``) and
``metric``/``records`` (false: no metric or record output, as a config's ``out`` without one).
"""

from __future__ import annotations

from typing import TypeVar

from ..errors import InvalidInput, Location, did_you_mean, with_article
from ..language.ruletree.convert import parse_rule_text
from ..language.ruletree.nodes import (
    Cast,
    Compare,
    Expr,
    FieldStep,
    Name,
    Selection,
    SelectItem,
    SelectList,
    Star,
    StringLit,
)
from ..language.ruletree.statements import Detail, GriffinMeasureDecl
from ..plan.data_types import TYPE_NAMES, Kind, parse_type_name
from ..rule_kinds import RuleKind
from ..spark_dialect.spark_names import with_frames
from .griffin_measure_specs import (
    BAD_FLAGS,
    MEASURE_KINDS,
    TYPE_SPELLINGS,
    AccuracyConfig,
    ColumnRef,
    CompletenessConfig,
    DuplicationConfig,
    MeasureConfig,
    ProfilingConfig,
    SchemaConformanceConfig,
    SparkSqlConfig,
    TypeCheck,
    integer_range,
)
from .suite import MetricOutput, RuleSpec, ViewSpec

_T = TypeVar("_T", bool, int)
_OUTPUTS = ("metric", "records")
# the config keys each type takes as details
_OPTIONS = {
    RuleKind.GRIFFIN_DUPLICATION: ("bad.record.definition",),
    RuleKind.GRIFFIN_PROFILING: ("approx.distinct.count", "round.scale"),
    RuleKind.GRIFFIN_SPARK_SQL: ("bad.record.definition",),
}


def griffin_measure(statement: GriffinMeasureDecl) -> tuple[RuleSpec, ViewSpec | None]:
    """The measure's rule, and the view of a sparkSQL measure's query."""
    kind = MEASURE_KINDS.get(statement.measure_type.lower())
    if kind is None:
        raise _error(
            statement,
            "UNKNOWN_MEASURE_TYPE",
            f"unknown measure type {statement.measure_type!r}",
            did_you_mean(statement.measure_type, TYPE_SPELLINGS),
        )
    details = _details(statement, kind)
    if kind is RuleKind.GRIFFIN_ACCURACY and statement.target is None:
        raise _error(
            statement, "MISSING_REF_SOURCE", f"accuracy measure {statement.name!r} needs a reference source", ""
        )
    if kind is not RuleKind.GRIFFIN_ACCURACY and statement.target is not None:
        raise _error(
            statement, "TARGET_NOT_ALLOWED", f"{with_article(statement.measure_type)} measure has no reference source"
        )
    view = None
    items = statement.body.items
    body: MeasureConfig
    if kind is RuleKind.GRIFFIN_COMPLETENESS:
        body = CompletenessConfig(_one(statement, "a condition that holds for the complete rows").expr)
    elif kind is RuleKind.GRIFFIN_DUPLICATION:
        flag = details.get("bad.record.definition")
        if flag is None or flag.value not in BAD_FLAGS:
            raise _error(
                flag or statement,
                "BAD_RECORD_DEFINITION",
                f"bad.record.definition must be one of {', '.join(BAD_FLAGS)}",
                did_you_mean(str(flag.value), BAD_FLAGS) if flag else 'with bad.record.definition = "duplicate"',
            )
        body = DuplicationConfig(_columns(items), str(flag.value))
    elif kind is RuleKind.GRIFFIN_PROFILING:
        approximate = _typed(details, "approx.distinct.count", bool, True)
        body = ProfilingConfig(_columns(items), approximate, _typed(details, "round.scale", int, 3))
    elif kind is RuleKind.GRIFFIN_ACCURACY:
        body = AccuracyConfig(tuple(_pair(item, statement) for item in items))
    elif kind is RuleKind.GRIFFIN_SPARK_SQL:
        query = _one(statement, "the query, as a string").expr
        bad = details.get("bad.record.definition")
        if not isinstance(query, StringLit) or bad is None or not isinstance(bad.value, str):
            raise _error(
                statement, "BAD_CONFIG", "a sparkSQL measure is its query as a string, with bad.record.definition"
            )
        view = ViewSpec(f"{statement.name}__query", with_frames(query.value, {}), query.location)
        body = SparkSqlConfig(view.name, _condition(bad))
    else:
        body = SchemaConformanceConfig(tuple(_type_check(item) for item in items))
    outputs = {key: _typed(details, key, bool, True) for key in _OUTPUTS}
    rule = RuleSpec(
        kind.value,
        statement.name,
        statement.source,
        statement.target,
        body,
        {},
        statement.location,
        MetricOutput(statement.name) if outputs["metric"] else None,  # a suite keeps each under its name
        statement.name if outputs["records"] and kind is not RuleKind.GRIFFIN_PROFILING else None,
    )
    return rule, view


def _details(statement: GriffinMeasureDecl, kind: RuleKind) -> dict[str, Detail]:
    allowed = (*_OPTIONS.get(kind, ()), *_OUTPUTS)
    for detail in statement.details:
        if detail.key not in allowed:
            raise _error(
                detail,
                "UNKNOWN_DETAIL",
                f"measure {statement.name!r} has no detail {detail.key!r}",
                did_you_mean(detail.key, allowed) or f"its details: {', '.join(allowed)}",
            )
    return {detail.key: detail for detail in statement.details}


def _typed(details: dict[str, Detail], key: str, kind: type[_T], default: _T) -> _T:
    detail = details.get(key)
    if detail is None:
        return default
    if not isinstance(detail.value, kind) or (kind is int and isinstance(detail.value, bool)):
        raise _error(detail, "BAD_DETAIL", f"{key} must be {'true or false' if kind is bool else 'an integer'}")
    value: _T = detail.value
    return value


def _one(statement: GriffinMeasureDecl, what: str) -> SelectItem:
    items = statement.body.items
    if len(items) != 1 or items[0].alias:
        raise _error(statement, "BAD_CONFIG", f"{with_article(statement.measure_type)} measure takes one item: {what}")
    return items[0]


def _columns(items: tuple[SelectItem, ...]) -> tuple[ColumnRef, ...]:
    """Column names (``*`` alone: every column, as Griffin's empty ``expr``), repeats dropped as Griffin does."""
    if len(items) == 1 and isinstance(items[0].expr, Star):
        return ()
    refs: dict[str, ColumnRef] = {}
    for item in items:
        if not isinstance(item.expr, Name) or item.alias:
            raise _error(item, "BAD_CONFIG", "list column names (or * for every column)")
        refs.setdefault(item.expr.name, ColumnRef(item.expr.name, item.location))
    return tuple(refs.values())


def _pair(item: SelectItem, statement: GriffinMeasureDecl) -> tuple[ColumnRef, ColumnRef]:
    expr = item.expr
    if isinstance(expr, Compare) and expr.op in ("=", "==") and not item.alias:
        left, right = _qualified(expr.left, statement.source), _qualified(expr.right, statement.target)
        if left and right:
            return left, right
    raise _error(
        item, "BAD_CONFIG", f"an accuracy measure pairs columns: {statement.source}.col = {statement.target}.col"
    )


def _qualified(expr: Expr, source: str | None) -> ColumnRef | None:
    if isinstance(expr, Selection) and isinstance(expr.base, Name) and expr.base.name == source:
        if len(expr.steps) == 1 and isinstance(expr.steps[0], FieldStep):
            return ColumnRef(expr.steps[0].name, expr.steps[0].location)
    return None


def _type_check(item: SelectItem) -> TypeCheck:
    expr = item.expr
    if not isinstance(expr, Cast) or not isinstance(expr.operand, Name) or item.alias:
        raise _error(item, "BAD_CONFIG", "a schemaConformance measure lists cast(column as type) items")
    dtype = parse_type_name(expr.type_name)
    if dtype is None or dtype.kind is Kind.BINARY:
        raise _error(
            item,
            "UNKNOWN_TYPE",
            f"{expr.type_name!r} is not a type gryph can check",
            did_you_mean(expr.type_name, [name for name in TYPE_NAMES if name != "binary"]),
        )
    return TypeCheck(ColumnRef(expr.operand.name, expr.operand.location), dtype, integer_range(expr.type_name))


def _condition(detail: Detail) -> Expr:
    """A sparkSQL measure's bad.record.definition: one condition over the query's rows."""
    at = detail.value_at
    body = parse_rule_text("selections", str(detail.value), at.file, (at.line or 1) - 1, (at.column or 0))
    assert isinstance(body, SelectList)
    if len(body.items) != 1 or body.items[0].alias:
        raise _error(detail, "BAD_CONFIG", "bad.record.definition must be one condition", "combine with AND / OR")
    return body.items[0].expr


def _error(
    at: Detail | SelectItem | GriffinMeasureDecl, code: str, message: str, hint: str | None = None
) -> InvalidInput:
    location: Location = at.location
    return InvalidInput(code, message, location=location, text=at.text, hint=hint)
