"""textX models of native suites (and their checks) -> ``statements`` and ``check_nodes``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...support.recursion_room import recursion_room
from ..number_literals import number_from_text
from ..textx_parser import parse, unquote_label, unquote_name, unquote_string
from ..time_literals import time_literal_ms
from . import check_nodes as c
from . import nodes as n
from . import statements as s
from .convert import Converter
from .fast import fast_suite_tree
from .fast_scanner import Unhandled

_LOGIC = {"||": "or", "or": "or", "&&": "and", "and": "and"}


def parse_suite_tree(text: str, file: str | None = None) -> s.SuiteTree | None:
    """A native suite's statements; None when the text declares nothing at all."""
    try:
        return fast_suite_tree(text, file)
    except Unhandled:
        pass  # textX reads it (and says what is wrong with it)
    model = parse("suite", text, file)
    if isinstance(model, str):  # textX gives back the text itself when nothing was declared
        return None
    converter = SuiteConverter(text, file)
    with recursion_room():
        statements = tuple(converter.statement(statement) for statement in model.statements)
    return s.SuiteTree(unquote_name(model.name) if model.name else None, statements)


def literal_value(model: Any) -> object:
    """The Python value of a literal, tuple or bare name in a source option or rule detail."""
    kind = type(model).__name__
    if kind in ("TupleValue", "StringList"):
        return tuple(literal_value(item) for item in model.items)
    if kind == "Identifier":
        return unquote_name(model.name)
    if kind == "StringLiteral":
        return unquote_string(model.value)
    if kind == "TimeLiteral":
        return time_literal_ms(model.value)
    if kind == "NumberLiteral":
        return number_from_text(model.value)
    if kind == "BooleanLiteral":
        return model.value.lower() == "true"
    if kind == "NanLiteral":
        return math.nan
    return None  # NullLiteral


class SuiteConverter(Converter):
    """Statements of a native suite, and the check expressions in them."""

    def statement(self, model: Any) -> s.Statement:
        return _STATEMENTS[type(model).__name__](self, model)

    def source(self, model: Any) -> s.SourceDecl:
        paths = tuple(unquote_string(arg.path.value) for arg in model.args if getattr(arg, "path", None))
        options = tuple((arg.key, literal_value(arg.value)) for arg in model.args if getattr(arg, "key", None))
        return s.SourceDecl(unquote_name(model.name), model.format.lower(), paths, options, **self.at(model))

    def rule(self, model: Any, body: n.AccuracyBody | n.SelectQuery | n.SelectList) -> s.RuleDecl:
        details = () if model.details is None else tuple(self._detail(entry) for entry in model.details.entries)
        target = getattr(model, "target", None)
        return s.RuleDecl(
            model.kind.lower(),
            unquote_name(model.name),
            unquote_name(model.source) if model.source else None,
            unquote_name(target) if target else None,
            body,
            details,
            self._segment(getattr(model, "segment", None)),
            **self.at(model),
        )

    def griffin_measure(self, model: Any) -> s.GriffinMeasureDecl:
        details = () if model.details is None else tuple(self._detail(entry) for entry in model.details.entries)
        return s.GriffinMeasureDecl(
            unquote_name(model.type),
            unquote_name(model.name),
            unquote_name(model.source),
            unquote_name(model.target) if model.target else None,
            self.select_list(model),
            details,
            **self.at(model),
        )

    def _segment(self, model: Any) -> s.SegmentBy | None:
        if model is None:
            return None
        return s.SegmentBy(unquote_name(model.column), int(model.top) if model.top else None, **self.at(model))

    def _detail(self, model: Any) -> s.Detail:
        return s.Detail(model.key, literal_value(model.value), self.location(model.value), **self.at(model))

    def measure(self, model: Any) -> s.MeasureDecl:
        native = model.native
        return s.MeasureDecl(
            unquote_label(model.name),
            model.shape.lower() if model.shape else None,
            unquote_name(model.source) if model.source else None,
            unquote_string(model.sql.text.value) if model.sql is not None else None,
            None if native is None else s.NativeText(unquote_string(native.text.value), **self.at(native)),
            self.query(model.query) if model.query is not None else None,
            self._segment(model.segment),
            **self.at(model),
        )

    def schema(self, model: Any) -> s.SchemaDecl:
        columns = tuple(
            s.SchemaColumn(unquote_name(column.name), column.type or None, **self.at(column))
            for column in model.columns
        )
        return s.SchemaDecl(unquote_name(model.source), model.mode.lower(), columns, **self.at(model))

    def notify(self, model: Any) -> s.NotifyDecl:
        details = () if model.details is None else tuple(self._detail(entry) for entry in model.details.entries)
        tones = tuple(unquote_name(tone) for tone in model.tones)
        checks = tuple(unquote_label(check) for check in model.checks)
        segments = tuple(literal_value(value) for value in model.segments)
        return s.NotifyDecl(unquote_string(model.url.value), tones, checks, details, segments, **self.at(model))

    def policy(self, model: Any) -> s.PassChecks | s.PassCount | s.PassAlways:
        kind = type(model).__name__
        if kind == "PassChecks":
            return s.PassChecks(tuple(unquote_label(name) for name in model.names), **self.at(model))
        if kind == "PassCount":
            return s.PassCount(model.op, model.count, **self.at(model))
        return s.PassAlways(model.kind.lower(), **self.at(model))

    # -- the check language ------------------------------------------------------------------------
    def check(self, model: Any) -> Any:  # a c.CheckExpr, or a named argument among a call's
        return _CHECKS[type(model).__name__](self, model)

    def _check_chain(self, model: Any) -> c.CheckExpr:
        if len(model.operands) == 1:
            only: c.CheckExpr = self.check(model.operands[0])
            return only
        ops = tuple(_LOGIC.get(op.lower(), op) for op in model.ops)
        return c.CheckChain(tuple(self.check(o) for o in model.operands), ops, **self.at(model))

    def _check_not(self, model: Any) -> c.CheckExpr:
        operand: c.CheckExpr = self.check(model.operand)
        return c.CheckUnary(("not",) * len(model.nots), operand, **self.at(model)) if model.nots else operand

    def _check_comparison(self, model: Any) -> c.CheckExpr:
        left: c.CheckExpr = self.check(model.left)
        if not model.op:
            return left
        return c.CheckChain((left, self.check(model.right)), (model.op,), **self.at(model))

    def _check_unary(self, model: Any) -> c.CheckExpr:
        operand: c.CheckExpr = self.check(model.operand)
        return c.CheckUnary(tuple(reversed(model.signs)), operand, **self.at(model)) if model.signs else operand

    def _check_access(self, model: Any) -> c.CheckExpr:
        base: c.CheckExpr = self.check(model.base)
        if not model.subscripts:
            return base
        subscripts = tuple(c.CheckSubscript(self.check(sub.index), **self.at(sub)) for sub in model.subscripts)
        return c.CheckAccess(base, subscripts, **self.at(model))


_STATEMENTS: dict[str, Callable[[SuiteConverter, Any], s.Statement]] = {
    "SourceDecl": SuiteConverter.source,
    "AccuracyDecl": lambda v, m: v.rule(m, v.accuracy(m.rule)),
    "ProfilingDecl": lambda v, m: v.rule(m, v.query(m.query)),
    "SelectionsDecl": lambda v, m: v.rule(m, v.select_list(m)),
    "FreshnessDecl": lambda v, m: v.rule(m, v.select_list(m)),
    "MeasureDecl": SuiteConverter.measure,
    "CheckDecl": lambda v, m: s.CheckDecl(
        unquote_label(m.name), bool(m.warn), v.check(m.expr), v._segment(m.segment), **v.at(m)
    ),
    "PassDecl": lambda v, m: s.PassDecl(v.policy(m.policy), **v.at(m)),
    "StreamDecl": lambda v, m: s.StreamDecl(int(time_literal_ms(m.interval.value)), **v.at(m)),
    "SchemaDecl": SuiteConverter.schema,
    "GriffinMeasureDecl": SuiteConverter.griffin_measure,
    "NotifyDecl": SuiteConverter.notify,
    "OutputDecl": lambda v, m: s.OutputDecl(
        m.kind,
        unquote_name(m.source),
        unquote_string(m.path.value),
        m.format or "parquet",
        tuple((arg.key, literal_value(arg.value)) for arg in m.options),
        **v.at(m),
    ),
}

_CHECKS: dict[str, Callable[[SuiteConverter, Any], c.CheckExpr | c.CheckNamedArgument]] = {
    "CheckOr": SuiteConverter._check_chain,
    "CheckAnd": SuiteConverter._check_chain,
    "CheckSum": SuiteConverter._check_chain,
    "CheckProduct": SuiteConverter._check_chain,
    "CheckNot": SuiteConverter._check_not,
    "CheckComparison": SuiteConverter._check_comparison,
    "CheckUnary": SuiteConverter._check_unary,
    "CheckAccess": SuiteConverter._check_access,
    "CheckGroup": lambda v, m: c.CheckGroup(v.check(m.expr), **v.at(m)),
    "CheckList": lambda v, m: c.CheckList(tuple(v.check(item) for item in m.items), **v.at(m)),
    "CheckCall": lambda v, m: c.CheckCall(m.name, tuple(v.check(arg) for arg in m.args), **v.at(m)),
    "CheckNamedArgument": lambda v, m: c.CheckNamedArgument(m.name, v.check(m.value), **v.at(m)),
    "CheckVariable": lambda v, m: c.CheckName(m.name, **v.at(m)),
    "CheckNumber": lambda v, m: c.CheckNumber(m.value, **v.at(m)),
    "CheckDuration": lambda v, m: c.CheckNumber(c.duration_token(m.value), **v.at(m)),
    "CheckString": lambda v, m: c.CheckString(unquote_string(m.value), **v.at(m)),
    "CheckBoolean": lambda v, m: c.CheckBoolean(m.value.lower() == "true", **v.at(m)),
    "CheckNull": lambda v, m: c.CheckNull(**v.at(m)),
    "CheckRows": lambda v, m: c.CheckRows(m.function, unquote_name(m.source), v.optional(m.condition), **v.at(m)),
    "CheckColumn": lambda v, m: c.CheckColumn(unquote_name(m.source), unquote_name(m.column), **v.at(m)),
}
