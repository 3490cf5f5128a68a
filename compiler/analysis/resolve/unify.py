"""Types of operands that meet: comparisons, IN lists and BETWEEN bounds cast to one type."""

from __future__ import annotations

from collections.abc import Sequence

from ...language.ruletree.nodes import Node
from ...plan import Call, Cast, Fn, Literal, Scalar, coerce
from ...plan.data_types import BOOLEAN, DOUBLE, STRING, TIMESTAMP, Kind, common_numeric, comparable
from .scope import Scope

COMPARE = {
    "=": Fn.EQ,
    "==": Fn.EQ,
    "!=": Fn.NE,
    "<>": Fn.NE,
    "<": Fn.LT,
    "<=": Fn.LE,
    ">": Fn.GT,
    ">=": Fn.GE,
    "<=>": Fn.EQ_NULL_SAFE,
}


class Unifier:
    """Makes operands comparable within a scope (whose errors it raises)."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        # Griffin's accuracy compares a string with a number as text; elsewhere that is an error.
        self.strings_compare_as_text = False

    coerce = staticmethod(coerce)

    def compare(self, op: str, left: Scalar, right: Scalar, node: Node) -> Scalar:
        """``left op right`` with both sides made comparable."""
        left, right = self.unify(left, right, node, f"'{op}'")
        return Call(COMPARE[op], (left, right), BOOLEAN)

    def unify(self, left: Scalar, right: Scalar, node: Node | None, what: str) -> tuple[Scalar, Scalar]:
        """Make two operands comparable, casting explicitly; a type error if they are not."""
        lt, rt = left.dtype, right.dtype
        if Kind.NULL in (lt.kind, rt.kind) or Kind.OTHER in (lt.kind, rt.kind):
            return left, right
        if Kind.JSON in (lt.kind, rt.kind):
            return self._unify_json(left, right, node, what)
        if lt.is_numeric and rt.is_numeric:
            common = common_numeric(lt, rt)
            if Kind.DECIMAL in (lt.kind, rt.kind) and lt != rt:
                common = DOUBLE
            return self.coerce(left, common), self.coerce(right, common)
        if lt.is_temporal and rt.is_temporal:
            if lt != rt:
                return self.coerce(left, TIMESTAMP), self.coerce(right, TIMESTAMP)
            return left, right
        # a string literal compared with a date or timestamp is read as one
        if lt.is_temporal and isinstance(right, Literal) and rt.kind is Kind.STRING:
            return left, Cast(right, lt)
        if rt.is_temporal and isinstance(left, Literal) and lt.kind is Kind.STRING:
            return Cast(left, rt), right
        if self.strings_compare_as_text and Kind.STRING in (lt.kind, rt.kind):
            return self.coerce(left, STRING), self.coerce(right, STRING)
        if not comparable(lt, rt):
            raise self.scope.error(
                "TYPE_MISMATCH",
                f"cannot compare {lt} with {rt} in {what}",
                node,
                "cast one side, e.g. cast(x as string)",
            )
        return left, right

    def _unify_json(self, left: Scalar, right: Scalar, node: Node | None, what: str) -> tuple[Scalar, Scalar]:
        """A JSON value compares as text with text, JSON and booleans, as a number with numbers."""
        other = right.dtype if left.dtype.kind is Kind.JSON else left.dtype
        if other.kind in (Kind.JSON, Kind.STRING, Kind.BOOLEAN):
            return self.coerce(left, STRING), self.coerce(right, STRING)
        if other.is_numeric:
            return self.coerce(left, DOUBLE), self.coerce(right, DOUBLE)
        if other.is_temporal:
            return self.coerce(left, other), self.coerce(right, other)
        raise self.scope.error(
            "TYPE_MISMATCH",
            f"cannot compare {left.dtype} with {right.dtype} in {what}",
            node,
            "select a scalar value from it first",
        )

    def unify_all(self, left: Scalar, others: Sequence[tuple[Scalar, Node]], what: str) -> tuple[Scalar, list[Scalar]]:
        """``left`` and every other operand in one type (IN lists, BETWEEN bounds)."""
        for value, node in others:  # widen the left side step by step: 1 in (2, 3.5) is a double test
            left, _ = self.unify(left, value, node, what)
        return left, [self.unify(left, value, node, what)[1] for value, node in others]
