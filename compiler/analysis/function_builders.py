"""Calls that become more than one plain ``Call``: Spark functions built from existing plan nodes.

``nvl`` is COALESCE, ``if`` a CASE, ``percentile_approx`` the exact PERCENTILE_DISC; literal
arguments (patterns, group numbers, fractions) are checked here, so a mistake is a located error
before any data is read rather than a failed query on one engine.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from ..plan import AggFn, AggregateCall, Between, Call, Fn, IfThen, IsNull, Literal, Scalar, coerce, not_
from ..plan.data_types import BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIMESTAMP, DataType, Kind
from ..spark_dialect.datetime_patterns import PatternError, parse_pattern
from ..spark_dialect.regex_syntax import REGEX_HINT, pattern_problem
from ..spark_dialect.regex_text import ReplacementError, capture_groups, replacement_parts

# Spark's default for from_unixtime, and the seconds of 0001-01-01 and 9999-12-31 23:59:59 UTC:
# the years both engines write the same way
DEFAULT_TIME_PATTERN = "yyyy-MM-dd HH:mm:ss"
FIRST_SECOND, LAST_SECOND = -62_135_596_800, 253_402_300_799


class ArgumentError(Exception):
    """An argument the function cannot take; the resolver adds where it was written."""

    def __init__(self, code: str, message: str, hint: str | None = None, position: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.hint = hint
        self.position = position  # the argument at fault (1-based), when it is one


@dataclass(frozen=True)
class Invocation:
    """A call being built: its typed arguments, its result type and the run's time."""

    args: tuple[Scalar, ...]
    result: DataType
    now_ms: int = 0


Builder = Callable[[Invocation], Scalar]


def unified(fn: Fn) -> Builder:
    """One ``Call`` of ``fn`` with every argument cast to the result type (COALESCE, LEAST, ...)."""
    return lambda inv: Call(fn, tuple(coerce(a, inv.result) for a in inv.args), inv.result)


def with_default(fn: Fn, text: str) -> Builder:
    """``fn`` with ``text`` as its third argument when the call leaves it out (lpad's pad)."""

    def build(inv: Invocation) -> Scalar:
        return Call(fn, inv.args if len(inv.args) == 3 else (*inv.args, Literal(text, STRING)), inv.result)

    return build


def swapped(fn: Fn) -> Builder:
    """``fn`` with its two arguments the other way round (locate(part, text) is instr(text, part))."""
    return lambda inv: Call(fn, inv.args[::-1], inv.result)


def _null(dtype: DataType) -> Literal:
    return Literal(None, dtype)


# -- conditions and NULLs -------------------------------------------------------------------------


def if_(inv: Invocation) -> Scalar:
    condition, then, otherwise = inv.args
    return IfThen(((condition, coerce(then, inv.result)),), coerce(otherwise, inv.result), inv.result)


def nvl2(inv: Invocation) -> Scalar:
    tested, present, absent = inv.args
    return IfThen(((not_(IsNull(tested)), coerce(present, inv.result)),), coerce(absent, inv.result), inv.result)


def nullif(inv: Invocation) -> Scalar:
    value, other = (coerce(a, inv.result) for a in inv.args)
    return IfThen(((Call(Fn.EQ, (value, other), BOOLEAN), _null(inv.result)),), value, inv.result)


def is_null(inv: Invocation) -> Scalar:
    return IsNull(inv.args[0])


def is_not_null(inv: Invocation) -> Scalar:
    return not_(IsNull(inv.args[0]))


def nanvl(inv: Invocation) -> Scalar:
    value, replacement = (coerce(a, DOUBLE) for a in inv.args)
    return IfThen(((Call(Fn.IS_NAN, (value,), BOOLEAN), replacement),), value, DOUBLE)


# -- text -----------------------------------------------------------------------------------------

INT32 = range(-(2**31), 2**31)  # Spark's positions and lengths are ints


def substring(inv: Invocation) -> Scalar:
    """SUBSTRING, with a written position or length refused beyond Spark's 32-bit ints (Spark's
    ANSI cast of it would fail the query, DuckDB takes no length beyond 2^32)."""
    for arg in inv.args[1:]:
        if isinstance(arg, Literal) and isinstance(arg.value, int) and arg.value not in INT32:
            raise ArgumentError(
                "ARGUMENT_OUT_OF_RANGE",
                f"{arg.value} is beyond a 32-bit integer",
                "positions and lengths are at most 2147483647",
            )
    return Call(Fn.SUBSTRING, inv.args, inv.result)


def left(inv: Invocation) -> Scalar:
    text, length = inv.args
    return Call(Fn.SUBSTRING, (text, Literal(1, INTEGER), length), STRING)


def right(inv: Invocation) -> Scalar:
    # Spark: '' for a length of zero or less, else the last `length` characters (all if fewer)
    text, length = inv.args
    last = Call(Fn.SUBSTRING, (text, Call(Fn.NEGATE, (length,), INTEGER), length), STRING)
    return IfThen(((Call(Fn.LE, (length, Literal(0, INTEGER)), BOOLEAN), Literal("", STRING)),), last, STRING)


def _literal(inv: Invocation, position: int, kinds: tuple[Kind, ...], what: str) -> Literal:
    """Argument ``position`` (1-based), which must be a constant of one of ``kinds``."""
    arg = inv.args[position - 1]
    if not isinstance(arg, Literal) or arg.dtype.kind not in kinds or arg.value is None:
        raise ArgumentError(
            "NOT_CONSTANT",
            f"argument {position} must be {what} written in the rule",
            "a column or expression cannot be checked before the data is read",
        )
    return arg


def _regex(pattern: Literal, position: int) -> Literal:
    """``pattern``, argument ``position``, written in the rule: both engines must read it alike.
    Checked after what the call's other arguments say of it (its groups)."""
    if problem := pattern_problem(str(pattern.value)):
        raise ArgumentError("BAD_REGEX", f"the pattern {pattern.value!r}: {problem}", REGEX_HINT, position)
    return pattern


def split(inv: Invocation) -> Scalar:
    """``split(text, pattern)``; a pattern written in the rule is checked, a computed one runs as it is."""
    if isinstance(inv.args[1], Literal) and inv.args[1].value is not None:
        _regex(inv.args[1], 2)
    return Call(Fn.SPLIT, inv.args, inv.result)


def regexp_extract(inv: Invocation) -> Scalar:
    text, pattern = inv.args[0], _literal(inv, 2, (Kind.STRING,), "a pattern")
    group = _literal(inv, 3, (Kind.INTEGER,), "a group number") if len(inv.args) == 3 else Literal(1, INTEGER)
    groups = capture_groups(str(pattern.value))
    if not 0 <= _integer(group) <= groups:
        raise ArgumentError(
            "REGEX_GROUP",
            f"group {group.value} does not exist: the pattern has {groups} group(s)",
            "0 is the whole match, 1 the first group",
        )
    return Call(Fn.REGEXP_EXTRACT, (text, _regex(pattern, 2), group), STRING)


def regexp_replace(inv: Invocation) -> Scalar:
    text, pattern = inv.args[0], _literal(inv, 2, (Kind.STRING,), "a pattern")
    replacement = _literal(inv, 3, (Kind.STRING,), "a replacement text")
    try:
        replacement_parts(str(replacement.value), capture_groups(str(pattern.value)))
    except ReplacementError as error:
        raise ArgumentError("BAD_REPLACEMENT", str(error)) from None
    return Call(Fn.REGEXP_REPLACE, (text, _regex(pattern, 2), replacement), STRING)


# -- numbers --------------------------------------------------------------------------------------


def pmod(inv: Invocation) -> Scalar:
    # Spark's definition: r = a % n; if r < 0 then (r + n) % n else r
    value, divisor = (coerce(a, inv.result) for a in inv.args)
    remainder = Call(Fn.MODULO, (value, divisor), inv.result)
    wrapped = Call(Fn.MODULO, (Call(Fn.ADD, (remainder, divisor), inv.result), divisor), inv.result)
    negative = Call(Fn.LT, (remainder, coerce(Literal(0, INTEGER), inv.result)), BOOLEAN)
    return IfThen(((negative, wrapped),), remainder, inv.result)


# -- time -----------------------------------------------------------------------------------------


def on_date(fn: Fn) -> Builder:
    """``fn`` with its first argument as a date (text read as Spark reads it, NULL if it does not)."""
    return lambda inv: Call(fn, (coerce(inv.args[0], DATE), *inv.args[1:]), inv.result)


def date_sub(inv: Invocation) -> Scalar:
    day, days = inv.args
    return Call(Fn.DATE_ADD, (coerce(day, DATE), Call(Fn.NEGATE, (days,), INTEGER)), DATE)


def datediff(inv: Invocation) -> Scalar:
    return Call(Fn.DATE_DIFF, tuple(coerce(a, DATE) for a in inv.args), INTEGER)


def _pattern(inv: Invocation, position: int) -> Literal:
    pattern = _literal(inv, position, (Kind.STRING,), "a datetime pattern")
    try:
        parse_pattern(str(pattern.value))
    except PatternError as error:
        raise ArgumentError("UNSUPPORTED_FORMAT", str(error)) from None
    return pattern


def date_format(inv: Invocation) -> Scalar:
    return Call(Fn.DATE_FORMAT, (coerce(inv.args[0], TIMESTAMP), _pattern(inv, 2)), STRING)


def from_unixtime(inv: Invocation) -> Scalar:
    seconds = inv.args[0]
    pattern = _pattern(inv, 2) if len(inv.args) == 2 else Literal(DEFAULT_TIME_PATTERN, STRING)
    in_range = Between(seconds, Literal(FIRST_SECOND, INTEGER), Literal(LAST_SECOND, INTEGER))
    time = IfThen(((in_range, Call(Fn.TIMESTAMP_SECONDS, (seconds,), TIMESTAMP)),), _null(TIMESTAMP), TIMESTAMP)
    return Call(Fn.DATE_FORMAT, (time, pattern), STRING)


def unix_timestamp(inv: Invocation) -> Scalar:
    if not inv.args:
        return Literal(inv.now_ms // 1000, INTEGER)
    return Call(Fn.EPOCH_SECONDS, (coerce(inv.args[0], TIMESTAMP),), INTEGER)


def _run_time(inv: Invocation) -> dt.datetime:
    return dt.datetime.fromtimestamp(inv.now_ms / 1000, dt.timezone.utc)


def current_date(inv: Invocation) -> Scalar:
    return Literal(_run_time(inv).date().isoformat(), DATE)


def current_timestamp(inv: Invocation) -> Scalar:
    return Literal(_run_time(inv).replace(tzinfo=None).isoformat(sep=" "), TIMESTAMP)


def to_timestamp(inv: Invocation) -> Scalar:
    return coerce(inv.args[0], TIMESTAMP)


# -- collections ----------------------------------------------------------------------------------


def array_contains(inv: Invocation) -> Scalar:
    items, value = inv.args
    return Call(Fn.ARRAY_CONTAINS, (items, coerce(value, items.dtype.args[0])), BOOLEAN)


# -- aggregates -----------------------------------------------------------------------------------


def _number(inv: Invocation, position: int, what: str) -> float:
    value = _literal(inv, position, (Kind.INTEGER, Kind.DOUBLE), what).value
    assert isinstance(value, (int, float))  # the literal of a number
    return value


def _integer(literal: Literal) -> int:
    assert isinstance(literal.value, int)  # an integer literal's value
    return literal.value


def approx_count_distinct(inv: Invocation) -> Scalar:
    # exact: the relative error a second argument allows is never used
    if len(inv.args) == 2:
        _number(inv, 2, "a relative error")
    return AggregateCall(AggFn.COUNT, inv.args[:1], INTEGER, distinct=True)


def percentile_approx(inv: Invocation) -> Scalar:
    # exact: the value Spark's sketch gives when its accuracy covers the rows (see the README)
    fraction = _number(inv, 2, "a fraction between 0 and 1")
    if not 0 <= fraction <= 1:
        raise ArgumentError("BAD_FRACTION", f"the fraction {fraction} is not between 0 and 1")
    if len(inv.args) == 3 and _number(inv, 3, "an accuracy") <= 0:
        raise ArgumentError("BAD_ACCURACY", "the accuracy must be a positive number")
    return AggregateCall(AggFn.PERCENTILE_DISC, (inv.args[0], Literal(float(fraction), DOUBLE)), inv.result)


def count_if(inv: Invocation) -> Scalar:
    one_where_true = IfThen(((inv.args[0], Literal(1, INTEGER)),), _null(INTEGER), INTEGER)
    return AggregateCall(AggFn.COUNT, (one_where_true,), INTEGER)


def any_value(inv: Invocation) -> Scalar:
    # NULLs are always skipped: Spark's first(x, true); a second argument must be a constant
    if len(inv.args) == 2:
        _literal(inv, 2, (Kind.BOOLEAN,), "true or false")
    return AggregateCall(AggFn.ANY_VALUE, inv.args[:1], inv.result)
