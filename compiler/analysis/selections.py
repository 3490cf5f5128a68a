"""Selections of the older Griffin design on JSON text and on native structs, arrays and maps.

A selection is a chain of steps after a value: `.a`, `['a']`, `[0]`, `[-1]`, `[(0, 3)]`, `[*]`,
`['name' = 'URL']`, `.json()`. Field and index steps yield one value; `[*]`, ranges and filters
yield several (the selected elements, in array order), and every later step applies to each of
them, dropping the elements where it yields NULL. A chain that yields several values stands for
the first of them (NULL when there is none), as an XPath node-set read as a string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import did_you_mean, with_article
from ..language.ruletree.nodes import AllStep, Expr, FieldStep, FilterStep, IndexStep, MethodStep, Node, RangeStep, Step
from ..plan import Call, Fn, IsNull, Lambda, Literal, Scalar, Variable, not_
from ..plan.data_types import BOOLEAN, INTEGER, JSON, STRING, DataType, Kind, array

if TYPE_CHECKING:  # the resolver imports this module
    from .resolve.resolver import Resolver
    from .resolve.scope import Context, Side


@dataclass
class Selected:
    """A value under selection; ``many``: ``value`` is the array of selected values."""

    value: Scalar
    many: bool = False


def is_selection_step(step: Step) -> bool:
    """Whether a step is applied element by element after a multi-valued step."""
    if isinstance(step, MethodStep):
        return step.name.lower() == "json"
    return isinstance(step, (FieldStep, IndexStep, AllStep, RangeStep, FilterStep))


class Selector:
    """Applies selection steps for a resolver (which resolves indexes and filter values)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.scope = resolver.scope
        self.depth = 0  # enclosing lambdas: each gets its own parameter name

    # -- one step on one value or on each selected value --------------------------------------
    def step(self, selected: Selected, suffix: Step, ctx: Context, head: Side | None) -> Selected:
        if not selected.many:
            return self._one(selected.value, suffix, ctx, head)
        items = selected.value
        param = f"__e{self.depth}"
        self.depth += 1
        try:
            inner = self._one(Variable(param, items.dtype.args[0]), suffix, ctx, head)
        finally:
            self.depth -= 1
        mapped = Call(Fn.ARRAY_MAP, (items, Lambda(param, inner.value, inner.value.dtype)), array(inner.value.dtype))
        kept = _drop_nulls(mapped)
        if inner.many:
            return Selected(Call(Fn.FLATTEN, (kept,), inner.value.dtype), True)
        return Selected(kept, True)

    @staticmethod
    def finish(selected: Selected) -> Scalar:
        """The value a selection stands for: the first selected value when there are several."""
        if not selected.many:
            return selected.value
        items = selected.value
        return Call(Fn.ELEMENT_AT, (items, Literal(0, INTEGER)), items.dtype.args[0])

    def _one(self, value: Scalar, suffix: Step, ctx: Context, head: Side | None) -> Selected:
        if isinstance(suffix, FieldStep):
            return Selected(self.field(value, suffix.name, suffix))
        if isinstance(suffix, MethodStep):  # .json()
            if suffix.args:
                raise self.scope.error("WRONG_ARITY", "json() takes no arguments", suffix)
            if value.dtype.kind not in (Kind.STRING, Kind.JSON, Kind.NULL):
                raise self.scope.error("TYPE_MISMATCH", f"json() parses text, got {value.dtype}", suffix)
            return Selected(Call(Fn.JSON_PARSE, (value,), JSON))
        if isinstance(suffix, IndexStep):
            index = self._inner(suffix.index, ctx, head, suffix)
            if isinstance(index, Literal) and index.dtype.kind is Kind.STRING:  # ['field']
                return Selected(self.field(value, str(index.value), suffix))
            return Selected(self.index(value, index, suffix))
        items = self.items(value, suffix)
        if isinstance(suffix, AllStep):
            return Selected(items, True)
        if isinstance(suffix, RangeStep):
            low, high = (self._integer(self._inner(n, ctx, head, suffix), n) for n in (suffix.low, suffix.high))
            return Selected(Call(Fn.SLICE, (items, low, high), items.dtype), True)
        assert isinstance(suffix, FilterStep)  # is_selection_step let nothing else through
        return Selected(self.filter(items, suffix, ctx, head), True)

    # -- the steps ------------------------------------------------------------------------------
    def field(self, value: Scalar, name: str, node: Node) -> Scalar:
        kind = value.dtype.kind
        if kind is Kind.JSON:
            if not name:
                raise self.scope.error("UNSUPPORTED_NAME", "a JSON field name cannot be empty", node)
            return Call(Fn.JSON_FIELD, (value, Literal(name, STRING)), JSON)
        if kind is Kind.MAP:
            return Call(Fn.ELEMENT_AT, (value, Literal(name, STRING)), value.dtype.args[1])
        field_type = value.dtype.field(name)
        if field_type is not None:
            return Call(Fn.GET_FIELD, (value, Literal(name, STRING)), field_type)
        if kind is Kind.STRUCT:
            names = [n for n, _ in value.dtype.args]
            raise self.scope.error(
                "UNKNOWN_FIELD", f"no field {name!r} in {value.dtype}", node, did_you_mean(name, names)
            )
        hint = "parse the text first: x.json()." + name if kind is Kind.STRING else None
        raise self.scope.error(
            "NOT_A_STRUCT", f"cannot select field {name!r} of {with_article(str(value.dtype))}", node, hint
        )

    def index(self, value: Scalar, index: Scalar, node: Node) -> Scalar:
        kind = value.dtype.kind
        if kind is Kind.MAP:
            return Call(Fn.ELEMENT_AT, (value, index), value.dtype.args[1])
        if kind in (Kind.ARRAY, Kind.JSON):
            items = self.items(value, node)
            return Call(Fn.ELEMENT_AT, (items, self._integer(index, node)), items.dtype.args[0])
        raise self.scope.error("NOT_INDEXABLE", f"cannot index {with_article(str(value.dtype))}", node)

    def items(self, value: Scalar, node: Node) -> Scalar:
        """The elements of an array (a JSON value read as an array of JSON values)."""
        if value.dtype.kind is Kind.JSON:
            return Call(Fn.JSON_ITEMS, (value,), array(JSON))
        if value.dtype.kind is Kind.ARRAY:
            return value
        raise self.scope.error("NOT_AN_ARRAY", f"this selection needs an array, got {value.dtype}", node)

    def filter(self, items: Scalar, suffix: FilterStep, ctx: Context, head: Side | None) -> Scalar:
        """The elements whose field compares true with the value; `= null` / `!= null` test NULL."""
        param = f"__e{self.depth}"
        element = Variable(param, items.dtype.args[0])
        self.depth += 1
        try:
            field = self.field(element, suffix.field, suffix)
        finally:
            self.depth -= 1
        value = self._inner(suffix.value, ctx, head, suffix)
        if isinstance(value, Literal) and value.value is None and suffix.op in ("=", "==", "!=", "<>"):
            test: Scalar = IsNull(field) if suffix.op in ("=", "==") else not_(IsNull(field))
        else:
            test = self.resolver.compare(suffix.op, field, value, suffix)
        return Call(Fn.ARRAY_FILTER, (items, Lambda(param, test, BOOLEAN)), items.dtype)

    # -- helpers ----------------------------------------------------------------------------------
    def _inner(self, node: Expr, ctx: Context, head: Side | None, suffix: Node) -> Scalar:
        """An index, bound or filter value; it may read only the selection's own head."""
        resolver = self.resolver
        outer, resolver.sides_used = resolver.sides_used, set()
        try:
            value = resolver.expression(node, ctx)
            used = resolver.sides_used
        finally:
            resolver.sides_used = outer | resolver.sides_used
        others = sorted(used - {head.source}) if head is not None else []
        if head is not None and others:
            raise self.scope.error(
                "CROSS_HEAD_SELECTION",
                f"a selection of {head.source} cannot be indexed or filtered by {others[0]}",
                suffix,
                f"use only {head.source} inside the brackets",
            )
        return value

    def _integer(self, index: Scalar, node: Node) -> Scalar:
        if index.dtype.kind not in (Kind.INTEGER, Kind.NULL):
            raise self.scope.error("TYPE_MISMATCH", f"an array index must be an integer, got {index.dtype}", node)
        return index


def _drop_nulls(items: Scalar) -> Scalar:
    element: DataType = items.dtype.args[0]
    return Call(Fn.ARRAY_FILTER, (items, Lambda("__v", not_(IsNull(Variable("__v", element))), BOOLEAN)), items.dtype)
