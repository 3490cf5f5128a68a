"""Function and method calls: the catalogue's functions, aggregates and ``count(*)``."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInput, closest, did_you_mean
from ...language.ruletree.nodes import Expr, FunctionCall, MethodStep, Node, Star
from ...plan import AggFn, AggregateCall, Call, Scalar
from ...plan.data_types import INTEGER, DataType
from ...plan.scalars import contains_aggregate
from ..function_builders import ArgumentError, Invocation
from ..function_catalogue import FUNCTIONS, Function
from ..regex_literals import warn_lost_backslashes
from .scope import Context, Scope, unknown_name

# the functions whose second argument (a method's receiver counted) is a regular expression: a
# string literal there loses a backslash as one after rlike does
_PATTERN_FUNCTIONS = frozenset({"regexp_extract", "regexp_replace", "split"})


def _hint(name: str) -> str | None:
    """The function nearest to ``name``; for a check's ``rows(...)`` (or a name near it), how a
    query counts rows."""
    if closest(name, FUNCTIONS) is None and closest(name, ["rows"]) is not None:
        return "rows(...) counts rows in a check: a query counts them with count(*)"
    return did_you_mean(name, FUNCTIONS)


class FunctionResolver:
    """Resolves calls for a resolver (which resolves their arguments)."""

    scope: Scope

    def _expr(self, node: Expr, ctx: Context) -> Scalar:
        raise NotImplementedError

    def call(self, node: FunctionCall | MethodStep, ctx: Context, receiver: Scalar | None = None) -> Scalar:
        """``name(args)``, or ``receiver.name(args)`` for a method."""
        name = node.name.lower()
        arg_nodes = node.args
        function = FUNCTIONS.get(name)
        if function is None:
            error = self.scope.error("UNKNOWN_FUNCTION", f"unknown function {node.raw_name!r}", node, _hint(name))
            value = unknown_name(error, self.scope.unknown)
            for written in arg_nodes:  # the names its arguments read are checked too
                if not isinstance(written, Star):
                    self._expr(written, ctx)
            return value
        if any(isinstance(a, Star) for a in arg_nodes):
            if name != "count" or len(arg_nodes) != 1 or receiver is not None or node.distinct:
                raise self.scope.error("STAR_NOT_ALLOWED", "'*' is only allowed as count(*)", node)
            return self.aggregate_call(AggFn.COUNT_ALL, [], INTEGER, False, node, ctx)
        if node.distinct and not function.is_aggregate:
            raise self.scope.error("DISTINCT_NOT_ALLOWED", f"DISTINCT applies to aggregates, not {name}()", node)
        inner = Context(aggregates=False, clause=ctx.clause) if function.is_aggregate else ctx
        if function.is_aggregate and not ctx.aggregates:
            raise self._aggregate_not_allowed(name, node, ctx)
        args = ([receiver] if receiver is not None else []) + [self._expr(a, inner) for a in arg_nodes]
        if function.is_aggregate:
            if receiver is not None and contains_aggregate(receiver):  # a.max().max()
                raise self.scope.error("NESTED_AGGREGATE", "aggregates cannot be nested", node)
            for arg, arg_node in zip(args[-len(arg_nodes) :] if arg_nodes else [], arg_nodes, strict=True):
                if contains_aggregate(arg):
                    raise self.scope.error("NESTED_AGGREGATE", "aggregates cannot be nested", arg_node)
        count = len(args)
        if count < function.min_args or (function.max_args is not None and count > function.max_args):
            raise self.scope.error(
                "WRONG_ARITY", f"{name}() takes {function.arity_text()} argument(s), got {count}", node
            )
        result = function.result([a.dtype for a in args])
        if isinstance(result, str):
            raise self.scope.error("TYPE_MISMATCH", f"{name}(): {result}", node)
        if function.build is not None:
            return self._built(function, name, args, result, node.distinct, node)
        if isinstance(function.op, AggFn):
            return self.aggregate_call(function.op, args, result, node.distinct, node, ctx)
        assert function.op is not None  # the catalogue gives a function without a builder its op
        return Call(function.op, tuple(args), result)

    def _built(
        self,
        function: Function,
        name: str,
        args: list[Scalar],
        result: DataType,
        distinct: bool,
        node: FunctionCall | MethodStep,
    ) -> Scalar:
        """The plan nodes a function builds from its arguments; a bad argument is a located error."""
        if distinct:
            raise self.scope.error("DISTINCT_NOT_ALLOWED", f"DISTINCT does not apply to {name}()", node)
        assert function.build is not None  # the caller looked
        try:
            built = function.build(Invocation(tuple(args), result, self.scope.now_ms))
        except ArgumentError as error:
            where: Node = self._written(node, args, error.position or 0) or node
            raise self.scope.error(error.code, f"{name}(): {error}", where, error.hint) from None
        if name in _PATTERN_FUNCTIONS and (pattern := self._written(node, args, 2)) is not None:
            warn_lost_backslashes(pattern)
        return built

    @staticmethod
    def _written(node: FunctionCall | MethodStep, args: list[Scalar], position: int) -> Node | None:
        """The argument written at ``position`` (1-based, a method's receiver being args[0])."""
        written = position - 1 - (len(args) - len(node.args))
        return node.args[written] if 0 <= written < len(node.args) else None

    def aggregate_call(
        self, fn: AggFn, args: Sequence[Scalar], dtype: DataType, distinct: bool, node: Node, ctx: Context
    ) -> Scalar:
        if not ctx.aggregates:
            raise self._aggregate_not_allowed(fn.value, node, ctx)
        return AggregateCall(fn, tuple(args), dtype, distinct)

    def _aggregate_not_allowed(self, name: str, node: Node, ctx: Context) -> InvalidInput:
        code = "AGGREGATE_IN_WHERE" if ctx.clause == "where" else "AGGREGATE_NOT_ALLOWED"
        hint = "move it to HAVING" if ctx.clause == "where" else None
        return self.scope.error(code, f"aggregate {name}() is not allowed in {ctx.clause}", node, hint)
