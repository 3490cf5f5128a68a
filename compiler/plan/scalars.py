"""Scalar expressions of the plan: frozen, typed, hashable nodes.

Every node carries its result type (``dtype``), decided by the compiler's type check, so an
engine never infers types on its own. Semantics every engine must honour:

- ``Cast`` from a floating type to INTEGER truncates toward zero;
- ``Call(DIVIDE)`` is true division and yields NULL when the divisor is zero;
- ``Call(IS_NAN)`` is false for NULL input; NaN never equals NULL;
- ``Like`` uses SQL ``%``/``_`` wildcards with ``\\`` as escape; ``RLike`` is a regex *search*
  (true when the pattern matches anywhere, as Spark's ``rlike``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..types import BOOLEAN, DOUBLE, INTEGER, DataType, Kind
from .functions import AggFn, Fn, WindowFn


@dataclass(frozen=True, slots=True)
class Field:
    """A column of the input relation, by name."""

    name: str
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Literal:
    """A constant; ``value`` is None, bool, int, float (NaN allowed) or str."""

    value: object
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Call:
    """A catalogue function applied to arguments."""

    fn: Fn
    args: tuple["Scalar", ...]
    dtype: DataType


@dataclass(frozen=True, slots=True)
class IfThen:
    """``CASE WHEN c1 THEN v1 ... ELSE otherwise END``."""

    cases: tuple[tuple["Scalar", "Scalar"], ...]
    otherwise: "Scalar"
    dtype: DataType

    def __post_init__(self) -> None:
        if not self.cases:
            raise ValueError("IfThen needs at least one case")


@dataclass(frozen=True, slots=True)
class Cast:
    """Conversion to ``dtype``; float to integer truncates toward zero."""

    operand: "Scalar"
    dtype: DataType


@dataclass(frozen=True, slots=True)
class IsNull:
    """``operand IS NULL``."""

    operand: "Scalar"
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class In:
    """``operand IN (options)``."""

    operand: "Scalar"
    options: tuple["Scalar", ...]
    dtype: DataType = BOOLEAN

    def __post_init__(self) -> None:
        if not self.options:
            raise ValueError("In needs at least one option")


@dataclass(frozen=True, slots=True)
class Between:
    """``low <= operand AND operand <= high``."""

    operand: "Scalar"
    low: "Scalar"
    high: "Scalar"
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class Like:
    """SQL ``LIKE`` with ``%`` and ``_``."""

    operand: "Scalar"
    pattern: "Scalar"
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class RLike:
    """Regular-expression search (true if the pattern matches anywhere)."""

    operand: "Scalar"
    pattern: "Scalar"
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class AggregateCall:
    """An aggregate; ``filter`` restricts the rows it sees (``FILTER (WHERE ...)``)."""

    fn: AggFn
    args: tuple["Scalar", ...]
    dtype: DataType
    distinct: bool = False
    filter: "Scalar | None" = None

    def __post_init__(self) -> None:
        if self.fn is AggFn.COUNT_ALL and self.args:
            raise ValueError("COUNT_ALL takes no arguments")
        if self.fn is AggFn.PERCENTILE_DISC:
            if len(self.args) != 2 or not isinstance(self.args[1], Literal) \
                    or not isinstance(self.args[1].value, float) or not 0.0 <= self.args[1].value <= 1.0:
                raise ValueError("PERCENTILE_DISC takes a value and a fraction literal in [0, 1]")
        elif self.fn is not AggFn.COUNT_ALL and len(self.args) != 1:
            raise ValueError(f"{self.fn.value} takes exactly one argument")
        for arg in self.args:
            if contains_aggregate(arg):
                raise ValueError("aggregates cannot be nested")


@dataclass(frozen=True, slots=True)
class SortKey:
    """One ordering term; where NULLs go is always explicit."""

    expr: "Scalar"
    ascending: bool = True
    nulls_first: bool = True


@dataclass(frozen=True, slots=True)
class WindowCall:
    """A window function over partitions, e.g. row numbers."""

    fn: WindowFn
    partition_by: tuple["Scalar", ...] = ()
    order_by: tuple[SortKey, ...] = ()
    dtype: DataType = INTEGER


@dataclass(frozen=True, slots=True)
class Variable:
    """The parameter of the enclosing ``Lambda`` with this name (an array element)."""

    name: str
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Lambda:
    """A one-parameter function: the last argument of ARRAY_MAP and ARRAY_FILTER.

    ``dtype`` is the body's type; the body may read columns of the row besides ``param``.
    """

    param: str
    body: "Scalar"
    dtype: DataType


Scalar = Union[Field, Literal, Call, IfThen, Cast, IsNull, In, Between, Like, RLike, AggregateCall, WindowCall,
               Variable, Lambda]

SCALAR_TYPES: tuple[type, ...] = (
    Field, Literal, Call, IfThen, Cast, IsNull, In, Between, Like, RLike, AggregateCall, WindowCall,
    Variable, Lambda,
)


def children(node: Scalar) -> tuple[Scalar, ...]:
    """The direct sub-expressions of a scalar node."""
    if isinstance(node, (Field, Literal, Variable)):
        return ()
    if isinstance(node, Lambda):
        return (node.body,)
    if isinstance(node, (Call, AggregateCall)):
        extra = (node.filter,) if isinstance(node, AggregateCall) and node.filter is not None else ()
        return tuple(node.args) + extra
    if isinstance(node, IfThen):
        return tuple(x for case in node.cases for x in case) + (node.otherwise,)
    if isinstance(node, (Cast, IsNull)):
        return (node.operand,)
    if isinstance(node, In):
        return (node.operand,) + node.options
    if isinstance(node, Between):
        return (node.operand, node.low, node.high)
    if isinstance(node, (Like, RLike)):
        return (node.operand, node.pattern)
    if isinstance(node, WindowCall):
        return node.partition_by + tuple(k.expr for k in node.order_by)
    raise TypeError(f"not a scalar node: {node!r}")


def walk(node: Scalar):
    """Yield ``node`` and all its descendants, depth first."""
    yield node
    for child in children(node):
        yield from walk(child)


def substitute(node: Scalar, replace) -> Scalar:
    """``node`` rebuilt top-down: where ``replace(sub)`` returns a node, it takes sub's place."""
    new = replace(node)
    if new is not None:
        return new
    r = lambda e: substitute(e, replace)  # noqa: E731
    if isinstance(node, (Field, Literal, Variable)):
        return node
    if isinstance(node, Lambda):
        return Lambda(node.param, r(node.body), node.dtype)
    if isinstance(node, Call):
        return Call(node.fn, tuple(r(a) for a in node.args), node.dtype)
    if isinstance(node, AggregateCall):
        return AggregateCall(node.fn, tuple(r(a) for a in node.args), node.dtype, node.distinct,
                             None if node.filter is None else r(node.filter))
    if isinstance(node, IfThen):
        return IfThen(tuple((r(c), r(v)) for c, v in node.cases), r(node.otherwise), node.dtype)
    if isinstance(node, Cast):
        return Cast(r(node.operand), node.dtype)
    if isinstance(node, IsNull):
        return IsNull(r(node.operand))
    if isinstance(node, In):
        return In(r(node.operand), tuple(r(o) for o in node.options))
    if isinstance(node, Between):
        return Between(r(node.operand), r(node.low), r(node.high))
    if isinstance(node, (Like, RLike)):
        return type(node)(r(node.operand), r(node.pattern))
    if isinstance(node, WindowCall):
        return WindowCall(node.fn, tuple(r(p) for p in node.partition_by),
                          tuple(SortKey(r(k.expr), k.ascending, k.nulls_first) for k in node.order_by),
                          node.dtype)
    raise TypeError(f"not a scalar node: {node!r}")


def contains_aggregate(node: Scalar) -> bool:
    return any(isinstance(n, AggregateCall) for n in walk(node))


def contains_window(node: Scalar) -> bool:
    return any(isinstance(n, WindowCall) for n in walk(node))


def field_names(node: Scalar) -> set[str]:
    """Names of the input columns an expression reads."""
    return {n.name for n in walk(node) if isinstance(n, Field)}


# Small constructors the lowering uses constantly.
def lit(value: object, dtype: DataType) -> Literal:
    return Literal(value, dtype)


def call(fn: Fn, *args: Scalar, dtype: DataType = BOOLEAN) -> Call:
    return Call(fn, tuple(args), dtype)


def coerce(value: Scalar, dtype: DataType) -> Scalar:
    """``value`` as ``dtype``: an explicit Cast where the types differ (NULL and engine types pass)."""
    if value.dtype == dtype or value.dtype.kind in (Kind.NULL, Kind.OTHER):
        return value
    if isinstance(value, Literal) and dtype.kind is Kind.DOUBLE and isinstance(value.value, int):
        return Literal(float(value.value), DOUBLE)
    return Cast(value, dtype)


def balanced(fn: Fn, terms: list[Scalar] | tuple[Scalar, ...]) -> Scalar:
    """``a AND b AND c ...`` (or OR) as a balanced tree: 500 terms nest 9 deep, not 500. AND and
    OR are associative, so the value is the same; up to three terms it is the left-nested chain."""
    if not terms:
        raise ValueError(f"{fn.value} needs at least one term")
    if len(terms) == 1:
        return terms[0]
    middle = (len(terms) + 1) // 2
    return Call(fn, (balanced(fn, terms[:middle]), balanced(fn, terms[middle:])), BOOLEAN)


def and_all(terms: list[Scalar] | tuple[Scalar, ...]) -> Scalar:
    """Conjunction of one or more boolean terms."""
    return balanced(Fn.AND, terms)


def or_all(terms: list[Scalar] | tuple[Scalar, ...]) -> Scalar:
    """Disjunction of one or more boolean terms."""
    return balanced(Fn.OR, terms)


def not_(term: Scalar) -> Scalar:
    return Call(Fn.NOT, (term,), BOOLEAN)


def count_all(filter: Scalar | None = None) -> AggregateCall:
    return AggregateCall(AggFn.COUNT_ALL, (), INTEGER, filter=filter)
