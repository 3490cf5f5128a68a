"""Evaluates check expressions in memory: our own small interpreter, never Python's ``eval``.

Values are null, booleans, numbers, strings, lists, maps and measure rows. Logic is
three-valued as in SQL: an ordering comparison with null is unknown (null), ``not`` of unknown
is unknown, and a check whose value is not ``true`` fails. Equality treats null as a value:
``x == null`` is true exactly when x is null. The language has no loops and checks nest at most
``checks.MAX_DEPTH`` levels, so an evaluation always ends.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any

from ..errors import with_article
from ..results import Failed, Row
from .check_functions import FUNCTIONS, CheckError, Clock, is_number, shown, type_name
from .tree_nodes import Binary, Call, Const, Index, ListOf, MeasureRef, MetricRef, Traced, Unary

_ORDER = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


@dataclass
class Env:
    """What a check can read: measure values, rule metrics, history; ``trace`` collects values shown on failure,
    ``no_history`` the history calls (by their text) that found no earlier run."""

    measures: dict[str, object]
    metrics: dict[str, object]
    clock: Clock
    trace: dict[str, object] = field(default_factory=dict)
    no_history: list[str] = field(default_factory=list)


def evaluate(expr: Any, env: Env) -> object:  # expr: a node of checks.py's syntax tree
    kind = type(expr)
    if kind is Const:
        return expr.value
    if kind is Traced:
        value = evaluate(expr.expr, env)
        # a measure's whole row is shown as a map by column name, as the result document reports it
        env.trace[expr.text] = dict(zip(value.names, value.values, strict=True)) if isinstance(value, Row) else value
        if type(expr.expr) is Call and FUNCTIONS[expr.expr.fn].reads_history and (value is None or value == []):
            env.no_history.append(expr.text)
        return value
    if kind is MeasureRef:
        value = env.measures[expr.name]
        if isinstance(value, Failed):
            raise CheckError(f"measure {expr.name!r} failed: {value.error['message']}")
        return value
    if kind is MetricRef:
        return env.metrics.get(expr.rule)
    if kind is Index:
        return _index(evaluate(expr.base, env), evaluate(expr.index, env))
    if kind is ListOf:
        return [evaluate(item, env) for item in expr.items]
    if kind is Call:
        return FUNCTIONS[expr.fn].impl(env.clock, *(evaluate(arg, env) for arg in expr.args))
    if kind is Unary:
        return _unary(expr.op, evaluate(expr.operand, env))
    if expr.op in ("and", "or"):
        return _logic(expr, env)
    return _binary(expr.op, evaluate(expr.left, env), evaluate(expr.right, env))


def _truth(value: object, op: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise CheckError(f"'{op}' needs true, false or null, got {type_name(value)}")


def _logic(expr: Binary, env: Env) -> bool | None:
    """Three-valued and/or, evaluating the right side only when it can change the result."""
    left = _truth(evaluate(expr.left, env), expr.op)
    decided = False if expr.op == "and" else True
    if left is decided:
        return decided
    right = _truth(evaluate(expr.right, env), expr.op)
    if right is decided:
        return decided
    return None if left is None or right is None else not decided


def _unary(op: str, value: Any) -> object:
    if value is None:
        return None
    if op == "not":
        return not _truth(value, "not")
    if not is_number(value):
        raise CheckError(f"unary '{op}' needs a number, got {type_name(value)}")
    return -value if op == "-" else value


def _index(base: object, index: object) -> object:
    if base is None or index is None:
        return None
    if isinstance(base, Row):
        if isinstance(index, str):
            if index not in base.names:
                raise CheckError(f"the row has no column {index!r} (columns: {', '.join(base.names)})")
            return base.values[base.names.index(index)]
        return _position(list(base.values), index)
    if isinstance(base, list):
        return _position(base, index)
    if isinstance(base, dict):
        if not isinstance(index, str):
            raise CheckError(f"a map takes a name in quotes, got {type_name(index)}")
        if index not in base:
            raise CheckError(f"no key {index!r} (keys: {', '.join(map(str, base))})")
        return base[index]
    raise CheckError(f"{with_article(type_name(base))} cannot be subscripted")


def _position(items: list[object], index: object) -> object:
    if not isinstance(index, int) or isinstance(index, bool):
        raise CheckError(f"a list takes a position, got {type_name(index)}")
    if not -len(items) <= index < len(items):
        raise CheckError(f"position {index} is out of range for {len(items)} values")
    return items[index]


def equal(left: Any, right: Any) -> bool:
    """Equality across the language's values: null equals only null, 1 == 1.0, rows compare as lists or maps."""
    if isinstance(left, Row):
        left = dict(zip(left.names, left.values, strict=True)) if isinstance(right, dict) else list(left.values)
    if isinstance(right, Row):
        right = dict(zip(right.names, right.values, strict=True)) if isinstance(left, dict) else list(right.values)
    if left is None or right is None:
        return left is right
    if is_number(left) and is_number(right):
        return bool(left == right)
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    return bool(left == right)


def _binary(op: str, left: Any, right: Any) -> object:
    if op == "==":
        return equal(left, right)
    if op == "!=":
        return not equal(left, right)
    if left is None or right is None:
        return None
    if op in _ORDER:
        if (is_number(left) and is_number(right)) or (isinstance(left, str) and isinstance(right, str)):
            return _ORDER[op](left, right)
        raise CheckError(f"cannot compare {type_name(left)} {op} {type_name(right)}")
    if op == "+" and isinstance(left, str) and isinstance(right, str):
        return left + right
    if not (is_number(left) and is_number(right)):
        raise CheckError(f"'{op}' needs numbers, got {type_name(left)} and {type_name(right)}")
    try:
        return _arithmetic(op, left, right)
    except OverflowError:  # an integer too large for a float met a float, or an exact quotient
        raise CheckError(f"{shown(left)} {op} {shown(right)} is beyond the range of a floating-point number") from None


def _arithmetic(op: str, left: int | float, right: int | float) -> int | float | None:
    """Python's exact integers and IEEE floats: a float result beyond the range is inf, as in SQL."""
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:  # division by zero is null, as in the rules
        return None
    if op == "/":
        return left / right
    # the remainder takes the dividend's sign (as SQL and Java do), not Python's floor rule
    if isinstance(left, int) and isinstance(right, int):
        remainder = abs(left) % abs(right)
        return remainder if left >= 0 else -remainder
    dividend = float(left)
    # an infinite dividend has no remainder: NaN, as Java's and Spark's % give
    return math.fmod(dividend, right) if math.isfinite(dividend) else math.nan
