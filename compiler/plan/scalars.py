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

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .data_types import BOOLEAN, DOUBLE, INTEGER, DataType, Kind
from .functions import ARITY, HIGHER_ORDER, LOGIC, AggFn, Fn, WindowFn
from .node import Node, Part, concrete_types, walk_nodes


class Scalar(Node):
    """Base of scalar expressions; every one has a result type, ``dtype``."""

    __slots__ = ()
    dtype: DataType

    def children(self) -> tuple[Scalar, ...]:
        """The direct sub-expressions (inside sort keys too)."""
        return self.parts_of(Scalar)


@dataclass(frozen=True, slots=True)
class Field(Scalar):
    """A column of the input relation, by name."""

    name: str
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Literal(Scalar):
    """A constant; ``value`` is None, bool, int, float (NaN allowed) or str."""

    value: object
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Call(Scalar):
    """A catalogue function applied to arguments."""

    fn: Fn
    args: tuple[Scalar, ...]
    dtype: DataType

    def __post_init__(self) -> None:
        _check_call(self.fn, self.args)


@dataclass(frozen=True, slots=True)
class IfThen(Scalar):
    """``CASE WHEN c1 THEN v1 ... ELSE otherwise END``."""

    cases: tuple[tuple[Scalar, Scalar], ...]
    otherwise: Scalar
    dtype: DataType

    def __post_init__(self) -> None:
        if not self.cases:
            raise ValueError("IfThen needs at least one case")


@dataclass(frozen=True, slots=True)
class Cast(Scalar):
    """Conversion to ``dtype``; float to integer truncates toward zero."""

    operand: Scalar
    dtype: DataType


@dataclass(frozen=True, slots=True)
class IsNull(Scalar):
    """``operand IS NULL``."""

    operand: Scalar
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class In(Scalar):
    """``operand IN (options)``."""

    operand: Scalar
    options: tuple[Scalar, ...]
    dtype: DataType = BOOLEAN

    def __post_init__(self) -> None:
        if not self.options:
            raise ValueError("In needs at least one option")


@dataclass(frozen=True, slots=True)
class Between(Scalar):
    """``low <= operand AND operand <= high``."""

    operand: Scalar
    low: Scalar
    high: Scalar
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class Like(Scalar):
    """SQL ``LIKE`` with ``%`` and ``_``."""

    operand: Scalar
    pattern: Scalar
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class RLike(Scalar):
    """Regular-expression search (true if the pattern matches anywhere)."""

    operand: Scalar
    pattern: Scalar
    dtype: DataType = BOOLEAN


@dataclass(frozen=True, slots=True)
class AggregateCall(Scalar):
    """An aggregate; ``filter`` restricts the rows it sees (``FILTER (WHERE ...)``)."""

    fn: AggFn
    args: tuple[Scalar, ...]
    dtype: DataType
    distinct: bool = False
    filter: Scalar | None = None

    def __post_init__(self) -> None:
        if self.fn is AggFn.COUNT_ALL and self.args:
            raise ValueError("COUNT_ALL takes no arguments")
        if self.fn is AggFn.PERCENTILE_DISC:
            if (
                len(self.args) != 2
                or not isinstance(self.args[1], Literal)
                or not isinstance(self.args[1].value, float)
                or not 0.0 <= self.args[1].value <= 1.0
            ):
                raise ValueError("PERCENTILE_DISC takes a value and a fraction literal in [0, 1]")
        elif self.fn is not AggFn.COUNT_ALL and len(self.args) != 1:
            raise ValueError(f"{self.fn.value} takes exactly one argument")
        for arg in self.args:
            if contains_aggregate(arg):
                raise ValueError("aggregates cannot be nested")


@dataclass(frozen=True, slots=True)
class SortKey(Part):
    """One ordering term; where NULLs go is always explicit."""

    expr: Scalar
    ascending: bool = True
    nulls_first: bool = True


@dataclass(frozen=True, slots=True)
class WindowCall(Scalar):
    """A window function over partitions, e.g. row numbers."""

    fn: WindowFn
    partition_by: tuple[Scalar, ...] = ()
    order_by: tuple[SortKey, ...] = ()
    dtype: DataType = INTEGER


@dataclass(frozen=True, slots=True)
class Variable(Scalar):
    """The parameter of the enclosing ``Lambda`` with this name (an array element)."""

    name: str
    dtype: DataType


@dataclass(frozen=True, slots=True)
class Lambda(Scalar):
    """A one-parameter function: the last argument of ARRAY_MAP and ARRAY_FILTER.

    ``dtype`` is the body's type; the body may read columns of the row besides ``param``.
    """

    param: str
    body: Scalar
    dtype: DataType

    def body_with_param(self, name: str) -> Scalar:
        """The body with the parameter renamed to ``name``, where this lambda binds it (an inner
        lambda with a parameter of the same name binds its own). Engines give parameters names
        no column of the row has, so a column read in the body is never taken for one."""

        def rename(sub: Scalar) -> Scalar | None:
            if isinstance(sub, Variable) and sub.name == self.param:
                return Variable(name, sub.dtype)
            return sub if isinstance(sub, Lambda) and sub.param == self.param else None

        return substitute(self.body, rename)


def _check_call(fn: Fn, args: tuple[Scalar, ...]) -> None:
    """Raise ValueError unless ``args`` suit ``fn``: their number, booleans for logic, and a
    Lambda exactly as the last argument of the higher-order functions."""
    fewest, most = ARITY.get(fn, (1, 1))
    if len(args) < fewest or (most is not None and len(args) > most):
        wanted = str(fewest) if fewest == most else f"{fewest} to {most}" if most else f"at least {fewest}"
        raise ValueError(f"{fn.value} takes {wanted} argument(s), got {len(args)}")
    if fn in LOGIC and any(a.dtype.kind not in (Kind.BOOLEAN, Kind.NULL, Kind.OTHER) for a in args):
        raise ValueError(f"{fn.value} takes boolean arguments, got {', '.join(str(a.dtype) for a in args)}")
    lambdas = [isinstance(a, Lambda) for a in args]
    if lambdas != [fn in HIGHER_ORDER and i == len(args) - 1 for i in range(len(args))]:
        raise ValueError(
            f"{fn.value}: a Lambda goes only as the last argument of "
            f"{' and '.join(sorted(f.value for f in HIGHER_ORDER))}"
        )


SCALAR_TYPES: tuple[type[Scalar], ...] = concrete_types(Scalar)


def children(node: Scalar) -> tuple[Scalar, ...]:
    """The direct sub-expressions of a scalar node."""
    return node.children()


def walk(node: Scalar) -> Iterator[Scalar]:
    """Yield ``node`` and all its descendants, depth first."""
    return walk_nodes(node, Scalar)


def substitute(node: Scalar, replace: Callable[[Scalar], Scalar | None]) -> Scalar:
    """``node`` rebuilt top-down: where ``replace(sub)`` returns a node, it takes sub's place."""
    new = replace(node)
    if new is not None:
        return new
    return node.rebuilt(Scalar, lambda sub: substitute(sub, replace))


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
