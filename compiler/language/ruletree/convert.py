"""textX models -> the typed rule tree: the last step of the parser.

A ``Converter`` knows the text a model was parsed from and where that text sits in its file,
so every node gets its final location. Only this package reads textX objects (by their grammar
rule names); everything after it reads ``nodes``, ``check_nodes`` and ``statements``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import Location
from ...support.recursion_room import recursion_room
from ..textx_parser import parse, string_value, unquote_name, unquote_string
from ..time_literals import time_literal_ms
from . import nodes as n
from .fast import fast_rule_text
from .fast_scanner import Unhandled
from .positions import Positions


class Converter(Positions):
    """Builds tree nodes from the textX objects of one parsed text."""

    # -- positions ------------------------------------------------------------------------------
    def location(self, model: Any) -> Location:
        """Where a textX object starts, offsets applied."""
        return self.location_at(model._tx_position)

    def at(self, model: Any) -> dict[str, Any]:
        """The ``location`` and ``text`` of the node built from ``model``."""
        return self.span(model._tx_position, model._tx_position_end)

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, model: Any) -> n.Expr:
        return _EXPRESSIONS[type(model).__name__](self, model)

    def exprs(self, models: Any) -> tuple[n.Expr, ...]:
        return tuple(self.expr(model) for model in models)

    def optional(self, model: Any) -> n.Expr | None:
        return None if model is None else self.expr(model)

    def _logical(self, model: Any, op: str) -> n.Expr:
        if len(model.operands) == 1:
            return self.expr(model.operands[0])
        return n.Logical(op, self.exprs(model.operands), **self.at(model))

    def _not(self, model: Any) -> n.Expr:
        operand = self.expr(model.operand)
        return n.Not(len(model.nots), operand, **self.at(model)) if model.nots else operand

    def _predicate(self, model: Any) -> n.Expr:
        left = self.expr(model.left)
        tail = model.tail
        if tail is None:
            return left
        at = self.at(model)
        kind = type(tail).__name__
        if kind == "CompareTail":
            return n.Compare(left, tail.op, self.expr(tail.right), **at)
        if kind == "InTail":
            return n.InList(left, self.exprs(tail.options), bool(tail.negated), **at)
        if kind == "BetweenTail":
            return n.Between(left, self.expr(tail.low), self.expr(tail.high), bool(tail.negated), **at)
        if kind == "LikeTail":
            return n.Like(left, tail.op, self.expr(tail.pattern), bool(tail.negated), **at)
        return n.IsTest(left, tail.what.lower(), bool(tail.negated), **at)

    def _arithmetic(self, model: Any) -> n.Expr:
        if len(model.operands) == 1:
            return self.expr(model.operands[0])
        return n.Arithmetic(self.exprs(model.operands), tuple(model.ops), **self.at(model))

    def _unary(self, model: Any) -> n.Expr:
        operand = self.expr(model.operand)
        return n.Signed(tuple(model.signs), operand, **self.at(model)) if model.signs else operand

    def _postfix(self, model: Any) -> n.Expr:
        base = self.expr(model.base)
        if not model.suffixes:
            return base
        steps = tuple(_STEPS[type(s).__name__](self, s) for s in model.suffixes)
        return n.Selection(base, steps, **self.at(model))

    def _function(self, model: Any) -> n.FunctionCall:
        return n.FunctionCall(
            model.name, unquote_name(model.name), bool(model.distinct), self.exprs(model.args), **self.at(model)
        )

    def _method(self, model: Any) -> n.MethodStep:
        return n.MethodStep(
            model.name, unquote_name(model.name), bool(model.distinct), self.exprs(model.args), **self.at(model)
        )

    # -- queries and rule bodies ----------------------------------------------------------------
    def select_item(self, model: Any) -> n.SelectItem:
        alias = unquote_name(model.alias) if model.alias else None
        return n.SelectItem(self.expr(model.expr), alias, **self.at(model))

    def select_items(self, models: Any) -> tuple[n.SelectItem, ...]:
        return tuple(self.select_item(model) for model in models)

    def select_list(self, model: Any) -> n.SelectList:
        """The items of a ``SelectList`` (or of a native statement holding ``items``)."""
        return n.SelectList(self.select_items(model.items), **self.at(model))

    def query(self, model: Any) -> n.SelectQuery:
        return n.SelectQuery(
            bool(model.distinct),
            self.select_items(model.items),
            unquote_name(model.source) if model.source else None,
            self.optional(model.where),
            self.exprs(model.groups),
            self.optional(model.having),
            tuple(
                n.OrderItem(self.expr(o.expr), (o.direction or "").lower() == "desc", **self.at(o))
                for o in model.orders
            ),
            model.limit or None,
            **self.at(model),
        )

    def accuracy(self, model: Any) -> n.AccuracyBody:
        index = self._index(model.index)
        if type(model).__name__ == "StatementRule":
            statements = tuple(_STATEMENTS[type(s).__name__](self, s) for s in model.statements)
            return n.StatementRule(statements, index, **self.at(model))
        condition = self.optional(model.condition)
        return n.ConditionRule(self.expr(model.rule), condition, index, **self.at(model))

    def _index(self, model: Any) -> n.IndexHint | None:
        if model is None:
            return None
        columns = tuple(part.strip() for part in unquote_string(model.columns.value).split(","))
        return n.IndexHint(columns, **self.at(model))

    def mapping(self, model: Any) -> n.Mapping:
        return n.Mapping(self.expr(model.left), model.op, self.expr(model.right), **self.at(model))


_EXPRESSIONS: dict[str, Callable[[Converter, Any], n.Expr]] = {
    "OrExpr": lambda c, m: c._logical(m, "or"),
    "AndExpr": lambda c, m: c._logical(m, "and"),
    "NotExpr": Converter._not,
    "Predicate": Converter._predicate,
    "Additive": Converter._arithmetic,
    "Multiplicative": Converter._arithmetic,
    "Unary": Converter._unary,
    "Postfix": Converter._postfix,
    "Paren": lambda c, m: n.Paren(c.expr(m.expr), **c.at(m)),
    "Identifier": lambda c, m: n.Name(unquote_name(m.name), **c.at(m)),
    "Head": lambda c, m: n.Head(m.token, m.token.strip("${} \t"), **c.at(m)),
    "Star": lambda c, m: n.Star(**c.at(m)),
    "CastExpr": lambda c, m: n.Cast(c.expr(m.operand), m.type, **c.at(m)),
    "FunctionCall": Converter._function,
    "StringLiteral": lambda c, m: n.StringLit(string_value(m.value), **c.at(m)),
    "NumberLiteral": lambda c, m: n.NumberLit(m.value, **c.at(m)),
    "TimeLiteral": lambda c, m: n.TimeLit(time_literal_ms(m.value), **c.at(m)),
    "BooleanLiteral": lambda c, m: n.BooleanLit(m.value.lower() == "true", **c.at(m)),
    "NullLiteral": lambda c, m: n.NullLit(**c.at(m)),
    "NanLiteral": lambda c, m: n.NanLit(**c.at(m)),
}

_STEPS: dict[str, Callable[[Converter, Any], n.Step]] = {
    "FieldSuffix": lambda c, m: n.FieldStep(unquote_name(m.name), **c.at(m)),
    "MethodSuffix": Converter._method,
    "StarSuffix": lambda c, m: n.StarStep(**c.at(m)),
    "AllSuffix": lambda c, m: n.AllStep(**c.at(m)),
    "RangeSuffix": lambda c, m: n.RangeStep(c.expr(m.low), c.expr(m.high), **c.at(m)),
    "FilterSuffix": lambda c, m: n.FilterStep(unquote_string(m.field.value), m.op, c.expr(m.value), **c.at(m)),
    "IndexSuffix": lambda c, m: n.IndexStep(c.expr(m.index), **c.at(m)),
}

_STATEMENTS: dict[str, Callable[[Converter, Any], n.RuleStatement]] = {
    "KeyStatement": lambda c, m: n.KeyStatement(c.mapping(m.mapping), **c.at(m)),
    "InvalidStatement": lambda c, m: n.InvalidStatement(c.expr(m.condition), **c.at(m)),
    "AssignStatement": lambda c, m: n.AssignStatement(m.name, c.expr(m.value), **c.at(m)),
    "MappingStatement": lambda c, m: n.MappingStatement(c.mapping(m.mapping), **c.at(m)),
}

_BODIES: dict[str, Callable[[Converter, Any], n.AccuracyBody | n.SelectQuery | n.SelectList]] = {
    "accuracy": Converter.accuracy,
    "profiling": Converter.query,
    "selections": Converter.select_list,
}


def parse_rule_text(
    grammar: str, text: str, file: str | None = None, line_offset: int = 0, column_offset: int = 0
) -> n.AccuracyBody | n.SelectQuery | n.SelectList:
    """The body of one rule's text (``grammar``: accuracy, profiling or selections) as a tree;
    the offsets place the text inside a larger file (a Griffin job config's JSON string)."""
    try:
        return fast_rule_text(grammar, text, file, line_offset, column_offset)
    except Unhandled:
        pass  # textX reads it (and says what is wrong with it)
    model = parse(grammar, text, file, line_offset, column_offset)
    with recursion_room():
        return _BODIES[grammar](Converter(text, file, line_offset, column_offset), model.body)
