"""Nodes of the check language (``check "fresh": measures["age"] < 3``), as parsed.

The check pass (``checks.py``) resolves names and builds the tree the interpreter evaluates,
folding each chain left to right.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..time_literals import time_literal_ms
from .nodes import Expr, Node


@dataclass(frozen=True, slots=True)
class CheckChain(Node):
    """Operands joined by operators of one precedence level (a comparison joins two)."""

    operands: tuple[CheckExpr, ...]
    ops: tuple[str, ...]  # or and == != < > <= >= + - * / %


@dataclass(frozen=True, slots=True)
class CheckUnary(Node):
    """``not``s or signs before a value; ``ops`` innermost first."""

    ops: tuple[str, ...]  # not - +
    operand: CheckExpr


@dataclass(frozen=True, slots=True)
class CheckGroup(Node):
    expr: CheckExpr


@dataclass(frozen=True, slots=True)
class CheckNumber(Node):
    """A number; a duration literal (``24h``) is the number of its milliseconds, its text as written."""

    token: str


def duration_token(literal: str) -> str:
    """The token of a duration literal's number: its milliseconds (``24h`` -> ``86400000``)."""
    return str(int(time_literal_ms(literal)))


@dataclass(frozen=True, slots=True)
class CheckString(Node):
    value: str


@dataclass(frozen=True, slots=True)
class CheckBoolean(Node):
    value: bool


@dataclass(frozen=True, slots=True)
class CheckNull(Node):
    pass


@dataclass(frozen=True, slots=True)
class CheckList(Node):
    items: tuple[CheckExpr, ...]


@dataclass(frozen=True, slots=True)
class CheckNamedArgument(Node):
    """``name = value`` among a call's arguments (``normal(k = 3)``)."""

    name: str
    value: CheckExpr


@dataclass(frozen=True, slots=True)
class CheckCall(Node):
    name: str
    args: tuple[CheckExpr | CheckNamedArgument, ...]


@dataclass(frozen=True, slots=True)
class CheckName(Node):
    """A bare name: only ``measures`` and ``metrics`` mean something, with a subscript."""

    name: str


@dataclass(frozen=True, slots=True)
class CheckSubscript(Node):
    index: CheckExpr


@dataclass(frozen=True, slots=True)
class CheckAccess(Node):
    """A value and one or more ``[...]`` after it."""

    base: CheckExpr
    subscripts: tuple[CheckSubscript, ...]


@dataclass(frozen=True, slots=True)
class CheckRows(Node):
    """``rows(orders where amount < 0)``: how many rows of a source hold a condition (all of them
    without one); the suite reads it as a measure of its own (``compiler/suites/row_counts.py``)."""

    function: str  # as written: rows, or another name given a source and a condition (refused)
    source: str
    condition: Expr | None


@dataclass(frozen=True, slots=True)
class CheckColumn(Node):
    """``orders.amount``: a source's column, read by ``drift(...)`` as a measure of its own
    (``compiler/suites/drift_sketches.py``)."""

    source: str
    column: str


CheckExpr = (
    CheckChain
    | CheckUnary
    | CheckGroup
    | CheckNumber
    | CheckString
    | CheckBoolean
    | CheckNull
    | CheckList
    | CheckCall
    | CheckName
    | CheckAccess
    | CheckRows
    | CheckColumn
)
