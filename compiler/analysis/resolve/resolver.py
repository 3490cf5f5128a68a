"""Expressions: a rule tree expression becomes a typed plan scalar within a scope, or a located error."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...errors import did_you_mean
from ...language.number_literals import number_from_text
from ...language.ruletree import nodes as n
from ...plan import Between, Call, Cast, Fn, In, IsNull, Like, Literal, RLike, Scalar
from ...plan.data_types import BOOLEAN, DOUBLE, INTEGER, NULL, STRING, TYPE_NAMES, Kind, common_numeric, parse_type_name
from ...plan.scalars import balanced
from ...spark_dialect.regex_syntax import REGEX_HINT, pattern_problem
from ..regex_literals import warn_lost_backslashes
from ..selections import Selector
from .names import NameResolver
from .scope import Context, Scope
from .unify import Unifier

INT64_MAX = 2**63 - 1
NUMBERS = {Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.BOOLEAN}
_ARITHMETIC = {"+": Fn.ADD, "-": Fn.SUBTRACT, "*": Fn.MULTIPLY, "/": Fn.DIVIDE, "%": Fn.MODULO}


class Resolver(NameResolver, Unifier):
    """Turns rule tree expressions into typed plan scalars within a scope."""

    def __init__(self, scope: Scope) -> None:
        Unifier.__init__(self, scope)
        self.sides_used: set[str] = set()
        self.selector = Selector(self)

    # -- entry points ---------------------------------------------------------------------
    def expression(self, node: n.Expr, ctx: Context | None = None) -> Scalar:
        return self._expr(node, ctx or Context())

    def condition(self, node: n.Expr, ctx: Context | None = None) -> Scalar:
        """A boolean expression (where, having, accuracy rules)."""
        result = self._expr(node, ctx or Context())
        if result.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
            raise self.scope.error(
                "TYPE_MISMATCH",
                f"a condition must be true or false, got {result.dtype}",
                node,
                "compare it with something, e.g. x = 1",
            )
        return result

    def _expr(self, node: n.Expr, ctx: Context) -> Scalar:
        return _DISPATCH[type(node)](self, node, ctx)

    # -- operators ----------------------------------------------------------------------------
    def _logical(self, node: n.Logical, ctx: Context) -> Scalar:
        fn = Fn.OR if node.op == "or" else Fn.AND
        terms = [self._boolean(operand, ctx, fn.value.upper()) for operand in node.operands]
        return balanced(fn, terms)

    def _boolean(self, node: n.Expr, ctx: Context, what: str) -> Scalar:
        value = self._expr(node, ctx)
        if value.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
            raise self.scope.error("TYPE_MISMATCH", f"{what} needs true/false operands, got {value.dtype}", node)
        return value

    def _not(self, node: n.Not, ctx: Context) -> Scalar:
        value = self._expr(node.operand, ctx)
        if value.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
            raise self.scope.error("TYPE_MISMATCH", f"NOT needs a true/false operand, got {value.dtype}", node)
        for _ in range(node.count):
            value = Call(Fn.NOT, (value,), BOOLEAN)
        return value

    def _compare(self, node: n.Compare, ctx: Context) -> Scalar:
        return self.compare(node.op, self._expr(node.left, ctx), self._expr(node.right, ctx), node)

    def _in(self, node: n.InList, ctx: Context) -> Scalar:
        left = self._expr(node.operand, ctx)
        left, options = self.unify_all(left, [(self._expr(o, ctx), o) for o in node.options], "IN")
        return _negated(In(left, tuple(options)), node.negated)

    def _between(self, node: n.Between, ctx: Context) -> Scalar:
        left = self._expr(node.operand, ctx)
        bounds = [(self._expr(node.low, ctx), node.low), (self._expr(node.high, ctx), node.high)]
        left, (low, high) = self.unify_all(left, bounds, "BETWEEN")
        return _negated(Between(left, low, high), node.negated)

    def _like(self, node: n.Like, ctx: Context) -> Scalar:
        left = self._expr(node.operand, ctx)
        pattern = self._expr(node.pattern, ctx)
        for value, where in ((left, node.operand), (pattern, node.pattern)):
            if value.dtype.kind not in (Kind.STRING, Kind.NULL, Kind.OTHER):
                raise self.scope.error(
                    "TYPE_MISMATCH",
                    f"{node.op.upper()} works on strings, got {value.dtype}",
                    where,
                    "cast it first: cast(x as string)",
                )
        if node.op.lower() == "like":
            return _negated(Like(left, pattern), node.negated)
        if isinstance(pattern, Literal) and (problem := pattern_problem(str(pattern.value))):
            raise self.scope.error("BAD_REGEX", f"the pattern {pattern.value!r}: {problem}", node.pattern, REGEX_HINT)
        warn_lost_backslashes(node.pattern)
        return _negated(RLike(left, pattern), node.negated)

    def _is(self, node: n.IsTest, ctx: Context) -> Scalar:
        left = self._expr(node.operand, ctx)
        if node.what == "null":
            return _negated(IsNull(left), node.negated)
        if not left.dtype.is_numeric and left.dtype.kind is not Kind.OTHER:
            raise self.scope.error("TYPE_MISMATCH", f"IS NAN works on numbers, got {left.dtype}", node.operand)
        return _negated(Call(Fn.IS_NAN, (left,), BOOLEAN), node.negated)

    def _arithmetic(self, node: n.Arithmetic, ctx: Context) -> Scalar:
        result = self._expr(node.operands[0], ctx)
        for op, operand_node in zip(node.ops, node.operands[1:], strict=True):
            right = self._expr(operand_node, ctx)
            for value, where in ((result, node.operands[0]), (right, operand_node)):
                if not value.dtype.is_numeric and value.dtype.kind is not Kind.OTHER:
                    hint = "use concat(a, b) to join strings" if value.dtype.kind is Kind.STRING else None
                    raise self.scope.error("TYPE_MISMATCH", f"'{op}' needs numbers, got {value.dtype}", where, hint)
            fn = _ARITHMETIC[op]
            if fn is Fn.DIVIDE:
                dtype = DOUBLE
            else:
                dtype = common_numeric(result.dtype, right.dtype)
                if dtype.kind is Kind.DECIMAL:
                    dtype = DOUBLE  # decimal precision rules differ by engine: compute in double
            result = Call(
                fn,
                (
                    self.coerce(result, dtype if fn is not Fn.DIVIDE else DOUBLE),
                    self.coerce(right, dtype if fn is not Fn.DIVIDE else DOUBLE),
                ),
                dtype,
            )
        return result

    def _signed(self, node: n.Signed, ctx: Context) -> Scalar:
        value = self._expr(node.operand, ctx)
        negate = sum(1 for sign in node.signs if sign == "-") % 2 == 1
        if not value.dtype.is_numeric and value.dtype.kind is not Kind.OTHER:
            raise self.scope.error("TYPE_MISMATCH", f"a sign needs a number, got {value.dtype}", node)
        if not negate:
            return value
        if isinstance(value, Literal) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
            return Literal(-value.value, value.dtype)
        return Call(Fn.NEGATE, (value,), value.dtype)

    # -- literals ----------------------------------------------------------------------------
    def _number(self, node: n.NumberLit, ctx: Context) -> Scalar:
        if any(c in node.token for c in ".eE"):
            return Literal(float(node.token), DOUBLE)
        return self._integer(number_from_text(node.token), node)

    def _integer(self, value: int | float, node: n.Node) -> Literal:
        if value > INT64_MAX:
            raise self.scope.error(
                "NUMBER_TOO_LARGE",
                "the number does not fit in 64 bits",
                node,
                "write it as a decimal number, e.g. 1.0e20",
            )
        return Literal(value, INTEGER)

    def _cast(self, node: n.Cast, ctx: Context) -> Scalar:
        value = self._expr(node.operand, ctx)
        target = parse_type_name(node.type_name)
        if target is None:
            hint = (
                "a decimal has 1 to 38 digits, at most as many after the point: decimal(38, 2)"
                if node.type_name.strip().lower().startswith("decimal")
                else did_you_mean(node.type_name, TYPE_NAMES)
            )
            raise self.scope.error("UNKNOWN_TYPE", f"unknown type {node.type_name!r}", node, hint)
        if {value.dtype.kind, target.kind} & {Kind.DATE} and {value.dtype.kind, target.kind} & NUMBERS:
            # Spark has no cast between dates and numbers (DuckDB neither)
            hint = (
                "a date from epoch days: date_add('1970-01-01', n)"
                if target.kind is Kind.DATE
                else "epoch days from a date: datediff(d, '1970-01-01')"
            )
            raise self.scope.error("CAST_NOT_ALLOWED", f"cannot cast {value.dtype} to {target}", node, hint)
        return Cast(value, target)


def _negated(test: Scalar, negated: bool) -> Scalar:
    return Call(Fn.NOT, (test,), BOOLEAN) if negated else test


def _bare(resolver: Resolver, node: n.Expr, ctx: Context) -> Scalar:
    """A name, ``*``, call or head with no selection after it."""
    return resolver.select(node, (), node, ctx)


_DISPATCH: dict[type, Callable[[Resolver, Any, Context], Scalar]] = {
    n.Logical: Resolver._logical,
    n.Not: Resolver._not,
    n.Compare: Resolver._compare,
    n.InList: Resolver._in,
    n.Between: Resolver._between,
    n.Like: Resolver._like,
    n.IsTest: Resolver._is,
    n.Arithmetic: Resolver._arithmetic,
    n.Signed: Resolver._signed,
    n.Paren: lambda r, node, ctx: r._expr(node.expr, ctx),
    n.Selection: lambda r, node, ctx: r.select(node.base, node.steps, node, ctx),
    n.Name: _bare,
    n.Star: _bare,
    n.FunctionCall: _bare,
    n.Head: _bare,
    n.Cast: Resolver._cast,
    n.NumberLit: Resolver._number,
    n.TimeLit: lambda r, node, ctx: r._integer(node.millis, node),
    n.StringLit: lambda r, node, ctx: Literal(node.value, STRING),
    n.BooleanLit: lambda r, node, ctx: Literal(node.value, BOOLEAN),
    n.NullLit: lambda r, node, ctx: Literal(None, NULL),
    n.NanLit: lambda r, node, ctx: Literal(math.nan, DOUBLE),
}
