"""Names and types: a parsed expression becomes a typed plan scalar, or a located error."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from .catalogue import FUNCTIONS, Function
from .errors import InvalidInput, Location, did_you_mean
from .function_builders import ArgumentError, Invocation
from .numbers import number_from_text
from .parser import location_of, source_text, unquote_name, unquote_string
from .plan import (
    AggFn,
    AggregateCall,
    Between,
    Call,
    Cast,
    Field,
    Fn,
    In,
    IsNull,
    Like,
    Literal,
    RLike,
    Scalar,
    coerce,
)
from .plan.scalars import balanced, contains_aggregate
from .selections import Selected, Selector, is_selection_step
from .types import (
    BOOLEAN,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    TIMESTAMP,
    TYPE_NAMES,
    DataType,
    Kind,
    Schema,
    common_numeric,
    comparable,
    parse_type_name,
)

TIME_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
INT64_MAX = 2**63 - 1
NUMBERS = {Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL, Kind.BOOLEAN}

_COMPARE = {
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
_ARITHMETIC = {"+": Fn.ADD, "-": Fn.SUBTRACT, "*": Fn.MULTIPLY, "/": Fn.DIVIDE, "%": Fn.MODULO}


@dataclass
class Side:
    """One data source visible in a rule: its schema and the names its columns have in the plan."""

    source: str
    schema: Schema
    rename: Callable[[str], str] = str  # str(name) is the name itself


@dataclass
class Scope:
    """What names mean inside one rule.

    ``sides`` are the visible sources by name; ``roles`` maps ``source``/``target`` to them;
    bare column names resolve against ``default`` sides in order. ``aliases`` are select-list
    names usable in ``having`` and ``order by``.
    """

    sides: dict[str, Side]
    roles: dict[str, str]
    default: list[str]
    file: str | None = None
    line_offset: int = 0
    column_offset: int = 0
    aliases: dict[str, Scalar] = field(default_factory=dict)
    outside: set[str] = field(default_factory=set)  # data sources this rule may not read
    variables: dict[str, Scalar] = field(default_factory=dict)  # `SLA = 24h;` read as ${SLA}
    now_ms: int = 0  # the run's time: current_date() and the like are this constant

    def locate(self, node) -> Location:
        return location_of(node, self.file, self.line_offset, self.column_offset)

    def error(self, code: str, message: str, node, hint: str | None = None) -> InvalidInput:
        return InvalidInput(code, message, location=self.locate(node), text=source_text(node) or None, hint=hint)

    def side_of_head(self, name: str) -> Side | None:
        if name in self.sides:
            return self.sides[name]
        lowered = name.lower()
        if lowered in self.roles:
            return self.sides[self.roles[lowered]]
        return None

    def all_column_names(self) -> list[str]:
        names = []
        for side_name in self.default:
            names.extend(self.sides[side_name].schema.names)
        return names


@dataclass
class Context:
    """Where an expression stands: whether aggregates may appear and what a clause is called."""

    aggregates: bool = False
    clause: str = "expression"


class Resolver:
    """Turns textX expression models into typed plan scalars within a scope."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.sides_used: set[str] = set()
        self.selector = Selector(self)
        # Griffin's accuracy compares a string with a number as text; elsewhere that is an error.
        self.strings_compare_as_text = False

    # -- entry points ---------------------------------------------------------------------
    def expression(self, node, ctx: Context | None = None) -> Scalar:
        return self._expr(node, ctx or Context())

    def condition(self, node, ctx: Context | None = None) -> Scalar:
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

    # -- dispatch ---------------------------------------------------------------------------
    def _expr(self, node, ctx: Context) -> Scalar:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise self.scope.error("UNSUPPORTED", f"{type(node).__name__} is not supported here", node)
        return method(node, ctx)

    def _OrExpr(self, node, ctx):
        return self._logical(node, ctx, Fn.OR)

    def _AndExpr(self, node, ctx):
        return self._logical(node, ctx, Fn.AND)

    def _logical(self, node, ctx, fn: Fn) -> Scalar:
        if len(node.operands) == 1:
            return self._expr(node.operands[0], ctx)
        terms = [self._boolean(operand, ctx, fn.value.upper()) for operand in node.operands]
        return balanced(fn, terms)

    def _boolean(self, node, ctx, what: str) -> Scalar:
        value = self._expr(node, ctx)
        if value.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
            raise self.scope.error("TYPE_MISMATCH", f"{what} needs true/false operands, got {value.dtype}", node)
        return value

    def _NotExpr(self, node, ctx):
        value = self._expr(node.operand, ctx)
        if not node.nots:
            return value
        if value.dtype.kind not in (Kind.BOOLEAN, Kind.NULL):
            raise self.scope.error("TYPE_MISMATCH", f"NOT needs a true/false operand, got {value.dtype}", node)
        for _ in node.nots:
            value = Call(Fn.NOT, (value,), BOOLEAN)
        return value

    def _Predicate(self, node, ctx):
        left = self._expr(node.left, ctx)
        tail = node.tail
        if tail is None:
            return left
        kind = type(tail).__name__
        if kind == "CompareTail":
            return self.compare(tail.op, left, self._expr(tail.right, ctx), node)
        if kind == "InTail":
            left, options = self.unify_all(left, [(self._expr(o, ctx), o) for o in tail.options], "IN")
            result: Scalar = In(left, tuple(options))
        elif kind == "BetweenTail":
            bounds = [(self._expr(tail.low, ctx), tail.low), (self._expr(tail.high, ctx), tail.high)]
            left, (low, high) = self.unify_all(left, bounds, "BETWEEN")
            result = Between(left, low, high)
        elif kind == "LikeTail":
            pattern = self._expr(tail.pattern, ctx)
            for value, where in ((left, node.left), (pattern, tail.pattern)):
                if value.dtype.kind not in (Kind.STRING, Kind.NULL, Kind.OTHER):
                    raise self.scope.error(
                        "TYPE_MISMATCH",
                        f"{tail.op.upper()} works on strings, got {value.dtype}",
                        where,
                        "cast it first: cast(x as string)",
                    )
            result = (RLike if tail.op.lower() == "rlike" else Like)(left, pattern)
        else:  # IsTail
            if tail.what.lower() == "null":
                result = IsNull(left)
            else:
                if not left.dtype.is_numeric and left.dtype.kind is not Kind.OTHER:
                    raise self.scope.error("TYPE_MISMATCH", f"IS NAN works on numbers, got {left.dtype}", node.left)
                result = Call(Fn.IS_NAN, (left,), BOOLEAN)
        return Call(Fn.NOT, (result,), BOOLEAN) if getattr(tail, "negated", False) else result

    def compare(self, op: str, left: Scalar, right: Scalar, node) -> Scalar:
        """``left op right`` with both sides made comparable."""
        left, right = self.unify(left, right, node, f"'{op}'")
        return Call(_COMPARE[op], (left, right), BOOLEAN)

    def _Additive(self, node, ctx):
        return self._arithmetic(node, ctx)

    def _Multiplicative(self, node, ctx):
        return self._arithmetic(node, ctx)

    def _arithmetic(self, node, ctx) -> Scalar:
        result = self._expr(node.operands[0], ctx)
        for op, operand_node in zip(node.ops, node.operands[1:]):
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

    def _Unary(self, node, ctx):
        value = self._expr(node.operand, ctx)
        negate = sum(1 for sign in node.signs if sign == "-") % 2 == 1
        if node.signs and not value.dtype.is_numeric and value.dtype.kind is not Kind.OTHER:
            raise self.scope.error("TYPE_MISMATCH", f"a sign needs a number, got {value.dtype}", node)
        if not negate:
            return value
        if isinstance(value, Literal) and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
            return Literal(-value.value, value.dtype)
        return Call(Fn.NEGATE, (value,), value.dtype)

    def _Paren(self, node, ctx):
        return self._expr(node.expr, ctx)

    # -- literals ----------------------------------------------------------------------------
    def _TimeLiteral(self, node, ctx):
        text = node.value.lower()
        unit = "ms" if text.endswith("ms") else text[-1]
        return self._integer(number_from_text(text[: -len(unit)]) * TIME_UNITS_MS[unit], node)

    def _NumberLiteral(self, node, ctx):
        text = node.value
        if any(c in text for c in ".eE"):
            return Literal(float(text), DOUBLE)
        return self._integer(number_from_text(text), node)

    def _integer(self, value: int | float, node) -> Literal:
        if value > INT64_MAX:
            raise self.scope.error(
                "NUMBER_TOO_LARGE",
                "the number does not fit in 64 bits",
                node,
                "write it as a decimal number, e.g. 1.0e20",
            )
        return Literal(value, INTEGER)

    def _StringLiteral(self, node, ctx):
        return Literal(unquote_string(node.value), STRING)

    def _BooleanLiteral(self, node, ctx):
        return Literal(node.value.lower() == "true", BOOLEAN)

    def _NullLiteral(self, node, ctx):
        return Literal(None, NULL)

    def _NanLiteral(self, node, ctx):
        return Literal(math.nan, DOUBLE)

    def _CastExpr(self, node, ctx):
        value = self._expr(node.operand, ctx)
        target = parse_type_name(node.type)
        if target is None:
            hint = (
                "a decimal has 1 to 38 digits, at most as many after the point: decimal(38, 2)"
                if node.type.strip().lower().startswith("decimal")
                else did_you_mean(node.type, TYPE_NAMES)
            )
            raise self.scope.error("UNKNOWN_TYPE", f"unknown type {node.type!r}", node, hint)
        if {value.dtype.kind, target.kind} & {Kind.DATE} and {value.dtype.kind, target.kind} & NUMBERS:
            # Spark has no cast between dates and numbers (DuckDB neither)
            hint = (
                "a date from epoch days: date_add('1970-01-01', n)"
                if target.kind is Kind.DATE
                else "epoch days from a date: datediff(d, '1970-01-01')"
            )
            raise self.scope.error("CAST_NOT_ALLOWED", f"cannot cast {value.dtype} to {target}", node, hint)
        return Cast(value, target)

    # -- selections ----------------------------------------------------------------------------
    def _Postfix(self, node, ctx):
        suffixes = list(node.suffixes)
        base = node.base
        kind = type(base).__name__
        value: Scalar | None = None
        if kind == "Identifier":
            name = unquote_name(base.name)
            side = self.scope.side_of_head(name)
            first = type(suffixes[0]).__name__ if suffixes else None
            if side is None and first == "FieldSuffix" and name in self.scope.outside and not self._is_column(name):
                visible = ", ".join(sorted(self.scope.sides))
                raise self.scope.error(
                    "SOURCE_NOT_ALLOWED",
                    f"{name!r} cannot appear in this rule",
                    base,
                    f"this rule reads only {visible}",
                )
            if (
                side is not None
                and first in ("FieldSuffix", "StarSuffix", "MethodSuffix")
                and not (
                    first == "FieldSuffix"
                    and self._is_column(name)
                    and unquote_name(suffixes[0].name) not in side.schema
                )
            ):
                return self._after_head(side, suffixes, node, ctx)
            value = self._column(name, base)
        elif kind == "Star":
            if suffixes and type(suffixes[0]).__name__ == "MethodSuffix":
                return self._star_method(suffixes[0], suffixes[1:], ctx)
            raise self.scope.error("STAR_NOT_ALLOWED", "'*' is only allowed in a select list or count(*)", node)
        elif kind == "FunctionCall":
            value = self._function(base.name, list(base.args), base.distinct, base, ctx)
        elif kind == "Head":
            return self._head(base, suffixes, node, ctx)
        else:
            value = self._expr(base, ctx)
        head = next(
            (
                self.scope.sides[s]
                for s in self.scope.default
                if kind == "Identifier" and unquote_name(base.name) in self.scope.sides[s].schema
            ),
            None,
        )
        return self._apply_suffixes(value, suffixes, ctx, head)

    def _head(self, base, suffixes, node, ctx) -> Scalar:
        """``$source`` / ``${target}`` (the rule's sides) or ``${SLA}`` (a variable of the rule)."""
        name = base.token.strip("${} \t")
        side = self.scope.side_of_head(name)
        if side is None:
            if name in self.scope.variables:
                return self._apply_suffixes(self.scope.variables[name], suffixes, ctx)
            known = sorted(set(self.scope.roles) | set(self.scope.variables))
            raise self.scope.error(
                "UNKNOWN_NAME",
                f"{base.token} is neither the rule's source or target nor a variable",
                base,
                did_you_mean(name, known),
            )
        if not suffixes:
            raise self.scope.error(
                "HEAD_NEEDS_SELECTION",
                f"{base.token} is a whole data source",
                node,
                f"select from it: {base.token}.column, {base.token}['column'] or {base.token}.json()",
            )
        first = suffixes[0]
        kind = type(first).__name__
        if kind == "IndexSuffix":
            column = self._expr(first.index, ctx)
            if not (isinstance(column, Literal) and column.dtype.kind is Kind.STRING):
                raise self.scope.error(
                    "NOT_INDEXABLE",
                    f"{base.token}[...] takes a column name in quotes",
                    first,
                    f"write {base.token}['column']",
                )
            value = self._side_column(side, column.value, first)
            return self._apply_suffixes(value, suffixes[1:], ctx, side)
        if kind in ("FieldSuffix", "StarSuffix", "MethodSuffix"):
            return self._after_head(side, suffixes, node, ctx)
        raise self.scope.error(
            "HEAD_NEEDS_SELECTION",
            f"{base.token} is a whole data source",
            first,
            f"select a column first: {base.token}['column']",
        )

    def _payload(self, side: Side, node) -> str:
        """The column ``$source.json()`` reads: ``value`` (Kafka's), else the only string column."""
        texts = [c.name for c in side.schema.columns if c.dtype.kind is Kind.STRING]
        if "value" in texts:
            return "value"
        if len(texts) == 1:
            return texts[0]
        raise self.scope.error(
            "NO_PAYLOAD",
            f"{side.source} has no column named 'value' and {len(texts)} string columns",
            node,
            "name the column: $source.column.json()",
        )

    def _is_column(self, name: str) -> bool:
        return any(name in self.scope.sides[s].schema for s in self.scope.default)

    def _after_head(self, side: Side, suffixes, node, ctx) -> Scalar:
        first = suffixes[0]
        kind = type(first).__name__
        if kind == "StarSuffix":
            if len(suffixes) > 1 and type(suffixes[1]).__name__ == "MethodSuffix":
                return self._star_method(suffixes[1], suffixes[2:], ctx)
            raise self.scope.error("STAR_NOT_ALLOWED", "'source.*' is only allowed in a select list", node)
        if kind == "MethodSuffix" and unquote_name(first.name).lower() == "json":
            payload = self._side_column(side, self._payload(side, first), first)
            return self._apply_suffixes(payload, suffixes, ctx, side)
        if kind == "MethodSuffix":
            return self._star_method(first, suffixes[1:], ctx)
        name = unquote_name(first.name)
        value = self._side_column(side, name, first)
        return self._apply_suffixes(value, suffixes[1:], ctx, side)

    def _star_method(self, method, rest, ctx) -> Scalar:
        if unquote_name(method.name).lower() != "count" or method.args:
            raise self.scope.error(
                "STAR_NOT_ALLOWED", "only count() applies to '*' or a whole source", method, "write count(*)"
            )
        value = self._aggregate_call(AggFn.COUNT_ALL, [], INTEGER, False, method, ctx)
        return self._apply_suffixes(value, rest, ctx)

    def _column(self, name: str, node) -> Scalar:
        matches = [s for s in self.scope.default if name in self.scope.sides[s].schema]
        if not matches and name in self.scope.variables:
            return self.scope.variables[name]
        if not matches:
            candidates = self.scope.all_column_names() + list(self.scope.aliases)
            if name in self.scope.aliases:
                return self.scope.aliases[name]
            hint = did_you_mean(name, candidates)
            heads = [h for h in self.scope.sides if h.lower() == name.lower()]
            if heads:
                hint = f"{name!r} is a data source: name a column, e.g. {heads[0]}.column"
            raise self.scope.error("UNKNOWN_COLUMN", f"unknown column {name!r}", node, hint)
        if len(matches) > 1:
            raise self.scope.error(
                "AMBIGUOUS_COLUMN",
                f"column {name!r} is in {' and '.join(matches)}",
                node,
                f"qualify it: {matches[0]}.{name} or {matches[1]}.{name}",
            )
        return self._side_column(self.scope.sides[matches[0]], name, node)

    def _side_column(self, side: Side, name: str, node) -> Scalar:
        column = side.schema.get(name)
        if column is None:
            raise self.scope.error(
                "UNKNOWN_COLUMN",
                f"unknown column {name!r} in {side.source}",
                node,
                did_you_mean(name, side.schema.names),
            )
        self.sides_used.add(side.source)
        return Field(side.rename(name), column.dtype)

    def _apply_suffixes(self, value: Scalar, suffixes, ctx, head: Side | None = None) -> Scalar:
        """Selections and method calls after a value; ``head`` is the side the value comes from."""
        selected = Selected(value)
        for suffix in suffixes:
            kind = type(suffix).__name__
            if is_selection_step(suffix):
                selected = self.selector.step(selected, suffix, ctx, head)
            elif kind == "MethodSuffix":
                receiver = self.selector.finish(selected)
                selected = Selected(
                    self._function(suffix.name, list(suffix.args), suffix.distinct, suffix, ctx, receiver=receiver)
                )
            else:
                raise self.scope.error("STAR_NOT_ALLOWED", "'.*' needs a data source before it", suffix)
        return self.selector.finish(selected)

    # -- functions ----------------------------------------------------------------------------
    def _function(
        self, raw_name: str, arg_nodes: list, distinct: bool, node, ctx, receiver: Scalar | None = None
    ) -> Scalar:
        name = unquote_name(raw_name).lower()
        function = FUNCTIONS.get(name)
        if function is None:
            raise self.scope.error(
                "UNKNOWN_FUNCTION", f"unknown function {raw_name!r}", node, did_you_mean(name, FUNCTIONS)
            )
        star_args = [a for a in arg_nodes if type(a).__name__ == "Star"]
        if star_args:
            if name != "count" or len(arg_nodes) != 1 or receiver is not None or distinct:
                raise self.scope.error("STAR_NOT_ALLOWED", "'*' is only allowed as count(*)", node)
            return self._aggregate_call(AggFn.COUNT_ALL, [], INTEGER, False, node, ctx)
        if distinct and not function.is_aggregate:
            raise self.scope.error("DISTINCT_NOT_ALLOWED", f"DISTINCT applies to aggregates, not {name}()", node)
        inner = Context(aggregates=False, clause=ctx.clause) if function.is_aggregate else ctx
        if function.is_aggregate and not ctx.aggregates:
            raise self._aggregate_not_allowed(name, node, ctx)
        args = ([receiver] if receiver is not None else []) + [self._expr(a, inner) for a in arg_nodes]
        if function.is_aggregate:
            if receiver is not None and contains_aggregate(receiver):  # a.max().max()
                raise self.scope.error("NESTED_AGGREGATE", "aggregates cannot be nested", node)
            for arg, arg_node in zip(args[-len(arg_nodes) :] if arg_nodes else [], arg_nodes):
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
            return self._built(function, name, args, result, distinct, node)
        if function.is_aggregate:
            return self._aggregate_call(function.op, args, result, distinct, node, ctx)
        return Call(function.op, tuple(args), result)

    def _built(
        self, function: Function, name: str, args: list[Scalar], result: DataType, distinct: bool, node
    ) -> Scalar:
        """The plan nodes a function builds from its arguments; a bad argument is a located error."""
        if distinct:
            raise self.scope.error("DISTINCT_NOT_ALLOWED", f"DISTINCT does not apply to {name}()", node)
        try:
            return function.build(Invocation(tuple(args), result, self.scope.now_ms))
        except ArgumentError as error:
            raise self.scope.error(error.code, f"{name}(): {error}", node, error.hint) from None

    def _aggregate_call(self, fn: AggFn, args, dtype, distinct, node, ctx) -> Scalar:
        if not ctx.aggregates:
            raise self._aggregate_not_allowed(fn.value, node, ctx)
        return AggregateCall(fn, tuple(args), dtype, distinct)

    def _aggregate_not_allowed(self, name: str, node, ctx) -> InvalidInput:
        code = "AGGREGATE_IN_WHERE" if ctx.clause == "where" else "AGGREGATE_NOT_ALLOWED"
        hint = "move it to HAVING" if ctx.clause == "where" else None
        return self.scope.error(code, f"aggregate {name}() is not allowed in {ctx.clause}", node, hint)

    # -- types -----------------------------------------------------------------------------------
    def unify(self, left: Scalar, right: Scalar, node, what: str) -> tuple[Scalar, Scalar]:
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

    def _unify_json(self, left: Scalar, right: Scalar, node, what: str) -> tuple[Scalar, Scalar]:
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

    def unify_all(self, left: Scalar, others: list[tuple[Scalar, object]], what: str) -> tuple[Scalar, list[Scalar]]:
        """``left`` and every other operand in one type (IN lists, BETWEEN bounds)."""
        for value, node in others:  # widen the left side step by step: 1 in (2, 3.5) is a double test
            left, _ = self.unify(left, value, node, what)
        return left, [self.unify(left, value, node, what)[1] for value, node in others]

    coerce = staticmethod(coerce)
