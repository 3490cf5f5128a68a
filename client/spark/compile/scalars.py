"""Plan scalars -> PySpark ``Column`` expressions: one function per node, tables per family.

Spark 4 runs in ANSI mode, where division by zero and bad casts raise; the contract wants NULL,
so those go through ``try_*`` functions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch

from pyspark.sql import Column

# The Connect modules directly: the generic pyspark.sql.functions pick Connect only when an
# environment variable says so, and would otherwise look for a local JVM.
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.column import Column as ConnectColumn
from pyspark.sql.connect.expressions import (
    Expression,
    LambdaFunction,
    UnresolvedFunction,
    UnresolvedNamedLambdaVariable,
)
from pyspark.sql.connect.window import Window

from gryph.compiler.engine import unsupported
from gryph.compiler.errors import UnsupportedError
from gryph.compiler.plan import (
    AggFn,
    AggregateCall,
    Between,
    Call,
    Cast,
    Field,
    Fn,
    IfThen,
    In,
    IsNull,
    Lambda,
    Like,
    Literal,
    RLike,
    SortKey,
    Variable,
    WindowCall,
    WindowFn,
)
from gryph.compiler.plan.data_types import DataType, Kind
from gryph.compiler.spark_dialect.spark_names import quoted

from ..capabilities import CAPABILITIES
from .type_mapping import to_spark


def column(name: str) -> Column:
    """A column by exact name."""
    return F.col(quoted(name))


def _expression(value: Column) -> Expression:
    """The Connect expression under a column (F's functions are typed with PySpark's generic Column)."""
    assert isinstance(value, ConnectColumn)
    return value._expr


def _unsupported(what: str) -> UnsupportedError:
    return unsupported(what, CAPABILITIES.engine)


@singledispatch
def compile_scalar(node: object) -> Column:
    """The Spark expression of a plan scalar."""
    raise _unsupported(f"scalar node {type(node).__name__}")


@compile_scalar.register
def _field(node: Field) -> Column:
    return column(node.name)


@compile_scalar.register
def _variable(node: Variable) -> Column:
    # by name: Spark binds it to the enclosing lambda's parameter of that name
    return ConnectColumn(UnresolvedNamedLambdaVariable([node.name]))


@compile_scalar.register
def _lambda(node: Lambda) -> Column:
    """A Spark lambda. Its parameter gets a fresh name (as PySpark's own lambdas do): a column of
    the row read inside the body is never taken for the parameter."""
    fresh = UnresolvedNamedLambdaVariable.fresh_var_name(node.param)
    body = compile_scalar(node.body_with_param(fresh))
    return ConnectColumn(LambdaFunction(_expression(body), [UnresolvedNamedLambdaVariable([fresh])]))


def _higher_order(name: str) -> Callable[..., Column]:
    return lambda node, items, function: ConnectColumn(
        UnresolvedFunction(name, [_expression(items), _expression(function)])
    )


@compile_scalar.register
def _literal(node: Literal) -> Column:
    if node.dtype.kind in (Kind.NULL, Kind.OTHER):
        return F.lit(node.value)
    # Typed even when NULL, so CASE/COALESCE branches keep the type the compiler chose.
    return F.lit(node.value).cast(to_spark(node.dtype))


@compile_scalar.register
def _call(node: Call) -> Column:
    handler = CALLS.get(node.fn)
    if handler is None:
        raise _unsupported(f"function {node.fn.value}")
    return _as_plan_type(handler(node, *(compile_scalar(a) for a in node.args)), node.dtype)


def _as_plan_type(result: Column, dtype: DataType) -> Column:
    """Spark picks its own numeric widths (int for LENGTH, decimal for AVG); the plan's type decides."""
    return result.cast(to_spark(dtype)) if dtype.kind in (Kind.INTEGER, Kind.DOUBLE) else result


@compile_scalar.register
def _if_then(node: IfThen) -> Column:
    (first_cond, first_value), *rest = node.cases
    out = F.when(compile_scalar(first_cond), compile_scalar(first_value))
    for cond, value in rest:
        out = out.when(compile_scalar(cond), compile_scalar(value))
    return out.otherwise(compile_scalar(node.otherwise))


@compile_scalar.register
def _cast(node: Cast) -> Column:
    operand = compile_scalar(node.operand)
    if node.dtype.kind in (Kind.NULL, Kind.OTHER):
        return operand
    # try_cast: a string that does not parse becomes NULL (ANSI cast would fail the query);
    # floating/decimal -> bigint truncates toward zero, as the contract wants.
    return operand.try_cast(to_spark(node.dtype))


@compile_scalar.register
def _is_null(node: IsNull) -> Column:
    return compile_scalar(node.operand).isNull()


@compile_scalar.register
def _in(node: In) -> Column:
    return compile_scalar(node.operand).isin(*(compile_scalar(o) for o in node.options))


@compile_scalar.register
def _between(node: Between) -> Column:
    operand = compile_scalar(node.operand)
    return (operand >= compile_scalar(node.low)) & (operand <= compile_scalar(node.high))


@compile_scalar.register
def _like(node: Like) -> Column:
    pattern = node.pattern
    if isinstance(pattern, Literal) and isinstance(pattern.value, str) and _beyond_utf16_unit(pattern.value):
        # Spark 4.1's LIKE quotes a pattern a UTF-16 unit at a time, splitting a character such as
        # 😀 in two, which then matches nothing: such a pattern is matched as the regex it means
        return F.regexp_like(compile_scalar(node.operand), F.lit(like_regex(pattern.value)))
    return F.like(compile_scalar(node.operand), compile_scalar(pattern), F.lit("\\"))


def _beyond_utf16_unit(text: str) -> bool:
    return any(ord(ch) > 0xFFFF for ch in text)


def like_regex(pattern: str) -> str:
    """A LIKE pattern (``%`` any text, ``_`` one character, ``\\`` escaping the next) as a Java
    regex over the whole text: ``(?s)`` so both also match line breaks, ``\\z`` its very end."""
    parts = ["(?s)\\A"]
    escaped = False
    for ch in pattern:
        if escaped or (ch not in "%_\\"):
            parts.append(ch if ch.isalnum() else "\\" + ch if ord(ch) < 128 else ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        else:
            parts.append(".*" if ch == "%" else ".")
    if escaped:  # a trailing escape stands for itself
        parts.append("\\\\")
    return "".join([*parts, "\\z"])


@compile_scalar.register
def _rlike(node: RLike) -> Column:
    return F.rlike(compile_scalar(node.operand), compile_scalar(node.pattern))


@compile_scalar.register
def _aggregate(node: AggregateCall) -> Column:
    if node.fn is AggFn.COUNT_ALL:
        result = F.count(F.lit(1)) if node.filter is None else F.count_if(compile_scalar(node.filter))
    elif node.fn not in AGGREGATES:  # percentiles are compiled with their Aggregate relation
        raise _unsupported(f"aggregate {node.fn.value} outside an Aggregate")
    else:
        value = compile_scalar(node.args[0])
        if node.filter is not None:
            # FILTER (WHERE c): the aggregate sees NULL where c is not true, and skips it.
            value = F.when(compile_scalar(node.filter), value)
        result = _aggregate_call(AGGREGATES[node.fn], [value, *_TRAILING.get(node.fn, ())], node.distinct)
    return _as_plan_type(result, node.dtype)


def _aggregate_call(name: str, args: list[Column], distinct: bool) -> Column:
    if not distinct:
        return F.call_function(name, *args)
    # F has count_distinct/sum_distinct only; Connect's own node carries DISTINCT for any aggregate.
    return ConnectColumn(UnresolvedFunction(name, [_expression(a) for a in args], is_distinct=True))


# Arguments after the value: any_value skips NULLs (the rows a filter leaves out among them)
_TRAILING: dict[AggFn, tuple[Column, ...]] = {AggFn.ANY_VALUE: (F.lit(True),)}


@compile_scalar.register
def _window(node: WindowCall) -> Column:
    handler = WINDOWS.get(node.fn)
    if handler is None:
        raise _unsupported(f"window function {node.fn.value}")
    spec = Window.partitionBy(*(compile_scalar(p) for p in node.partition_by))
    if node.order_by:
        spec = spec.orderBy(*(sort_key(k) for k in node.order_by))
    elif node.fn is WindowFn.ROW_NUMBER:
        spec = spec.orderBy(F.lit(1))  # Spark insists on an order for row numbers; any will do
    return handler().over(spec)


def sort_key(key: SortKey) -> Column:
    """An ordering term with NULL placement spelled out."""
    expr = compile_scalar(key.expr)
    if key.ascending:
        return expr.asc_nulls_first() if key.nulls_first else expr.asc_nulls_last()
    return expr.desc_nulls_first() if key.nulls_first else expr.desc_nulls_last()


def _is_nan(node: Call, value: Column) -> Column:
    if node.args[0].dtype.kind is Kind.DOUBLE:
        return F.coalesce(F.isnan(value), F.lit(False))
    return F.lit(False)  # only floating values can be NaN


def _round(node: Call, value: Column, digits: Column | None = None) -> Column:
    # Spark's round is HALF_UP, i.e. half away from zero; its scale must be a constant.
    if digits is None:
        return F.round(value, 0)
    scale = node.args[1]
    if not isinstance(scale, Literal) or not isinstance(scale.value, int):
        raise CAPABILITIES.refuse("round with a column scale")
    return F.round(value, scale.value)


def _element_at(node: Call, container: Column, key: Column) -> Column:
    if node.args[0].dtype.kind is Kind.ARRAY:
        # Plan indexes are 0-based (negative from the end); Spark's are 1-based, -1 is last, and
        # 32-bit: an index past the int range is out of range anyway, so try_cast's NULL is right.
        key = F.when(key >= 0, key + 1).otherwise(key).try_cast("int")
    return F.try_element_at(container, key)


def _get_field(node: Call, struct: Column, _name: Column) -> Column:
    name = node.args[1]
    if not isinstance(name, Literal) or not isinstance(name.value, str):
        raise _unsupported("GET_FIELD with a non-constant field name")
    return struct.getField(name.value)


def _make_struct(node: Call, *args: Column) -> Column:
    names = [n.value for n in node.args[::2] if isinstance(n, Literal) and isinstance(n.value, str)]
    if len(names) != len(node.args[::2]):
        raise _unsupported("MAKE_STRUCT with a non-constant field name")
    return F.struct(*(v.alias(n) for n, v in zip(names, args[1::2], strict=True)))


def _substring(node: Call, text: Column, start: Column, length: Column | None = None) -> Column:
    return F.substr(text, start, length) if length is not None else F.substr(text, start)


def _as_timestamp(node: Call, value: Column) -> Column:
    """A time value as a timestamp; text that does not read as one is NULL (ANSI cast would fail)."""
    if node.args[0].dtype.kind in (Kind.STRING, Kind.OTHER):
        return value.try_cast("timestamp")
    return value.cast("timestamp")


def _time_part(fn: Callable[[Column], Column]) -> Callable[..., Column]:
    return lambda node, value: fn(_as_timestamp(node, value))


def _slice(node: Call, items: Column, low: Column, high: Column) -> Column:
    # 0-based inclusive bounds, negative from the end (F.slice fails on some bounds under ANSI)
    low, high = (F.when(b < 0, F.size(items) + b).otherwise(b) for b in (low, high))
    return F.filter(items, lambda _, i: (i >= low) & (i <= high))


def _json_field(node: Call, doc: Column, _name: Column) -> Column:
    name = node.args[1]
    if not isinstance(name, Literal) or not isinstance(name.value, str):
        raise _unsupported("JSON_FIELD with a non-constant name")
    if CAPABILITIES.refusal("json field name with quotes or brackets").applies(node):
        raise CAPABILITIES.refuse("json field name with quotes or brackets")
    return F.get_json_object(doc, f"$['{name.value}']")


def _unary(fn: Callable[[Column], Column]) -> Callable[..., Column]:
    return lambda node, value: fn(value)


def _sql(name: str) -> Callable[..., Column]:
    """Spark SQL's function ``name`` on the arguments as Columns (F's wrappers want some as Python values)."""
    return lambda node, *args: F.call_function(name, *args)


def _int_at(position: int, fn: Callable[..., Column]) -> Callable[..., Column]:
    """``fn`` with argument ``position`` (0-based) as a 32-bit int, as Spark wants it; beyond: NULL."""

    def handler(node: Call, *args: Column) -> Column:
        cast = list(args)
        cast[position] = cast[position].try_cast("int")
        return fn(node, *cast)

    return handler


# 2**63 as a double (exact): the integers Spark's floor/ceil can give lie in [-2**63, 2**63)
_LONG_BOUND = float(2**63)


def _to_integer(fn: Callable[[Column], Column]) -> Callable[..., Column]:
    """floor/ceil to an integer; NaN, infinities and doubles beyond the 64-bit range give NULL.

    Spark would give 0 for NaN and clamp the rest to the long range; the contract (and DuckDB)
    says there is no integer. NaN sorts above every number in Spark, so one range test covers it.
    """

    def handler(node: Call, value: Column) -> Column:
        if node.args[0].dtype.kind is not Kind.DOUBLE:
            return fn(value)
        return F.when((value >= F.lit(-_LONG_BOUND)) & (value < F.lit(_LONG_BOUND)), fn(value))

    return handler


# the smallest 64-bit integer: its negation and absolute value are beyond 64 bits
_SMALLEST_LONG = -(2**63)


def _negate(node: Call, value: Column) -> Column:
    if node.dtype.kind is Kind.INTEGER:
        return F.try_subtract(F.lit(0), value)
    return -value  # doubles keep their sign bit: -(0.0) is -0.0


def _abs(node: Call, value: Column) -> Column:
    if node.dtype.kind is Kind.INTEGER:
        return F.when(value != F.lit(_SMALLEST_LONG), F.abs(value))
    return F.abs(value)


def _replace(node: Call, text: Column, search: Column, replacement: Column | None = None) -> Column:
    # without a replacement, the search text is removed (as Spark SQL's replace)
    return F.replace(text, search, replacement if replacement is not None else F.lit(""))


CALLS: dict[Fn, Callable[..., Column]] = {
    # try_: an integer result beyond 64 bits is NULL (ANSI arithmetic would fail the whole query)
    Fn.ADD: lambda n, a, b: F.try_add(a, b),
    Fn.SUBTRACT: lambda n, a, b: F.try_subtract(a, b),
    Fn.MULTIPLY: lambda n, a, b: F.try_multiply(a, b),
    Fn.DIVIDE: lambda n, a, b: F.try_divide(a.cast("double"), b.cast("double")),
    Fn.MODULO: lambda n, a, b: F.try_mod(a, b),
    Fn.NEGATE: _negate,
    Fn.EQ: lambda n, a, b: a == b,
    Fn.NE: lambda n, a, b: a != b,
    Fn.LT: lambda n, a, b: a < b,
    Fn.LE: lambda n, a, b: a <= b,
    Fn.GT: lambda n, a, b: a > b,
    Fn.GE: lambda n, a, b: a >= b,
    Fn.EQ_NULL_SAFE: lambda n, a, b: a.eqNullSafe(b),
    Fn.AND: lambda n, a, b: a & b,
    Fn.OR: lambda n, a, b: a | b,
    Fn.NOT: lambda n, a: ~a,
    Fn.COALESCE: lambda n, *args: F.coalesce(*args),
    Fn.IS_NAN: _is_nan,
    Fn.UPPER: _unary(F.upper),
    Fn.LOWER: _unary(F.lower),
    Fn.TRIM: _unary(F.trim),
    Fn.LTRIM: _unary(F.ltrim),
    Fn.RTRIM: _unary(F.rtrim),
    Fn.LENGTH: _unary(F.char_length),
    Fn.SUBSTRING: _substring,
    Fn.CONCAT: lambda n, *args: F.concat(*args),
    Fn.REPLACE: _replace,
    Fn.CONCAT_WS: _sql("concat_ws"),
    Fn.LPAD: _int_at(1, _sql("lpad")),
    Fn.RPAD: _int_at(1, _sql("rpad")),
    Fn.STRPOS: _sql("instr"),
    Fn.REPEAT: _int_at(1, _sql("repeat")),
    Fn.REVERSE: _sql("reverse"),
    Fn.STARTS_WITH: _sql("startswith"),
    Fn.ENDS_WITH: _sql("endswith"),
    Fn.CONTAINS: _sql("contains"),
    Fn.REGEXP_EXTRACT: _int_at(2, _sql("regexp_extract")),
    Fn.REGEXP_REPLACE: _sql("regexp_replace"),
    Fn.SPLIT: _sql("split"),
    Fn.ABS: _abs,
    Fn.ROUND: _round,
    Fn.FLOOR: _to_integer(F.floor),
    Fn.CEIL: _to_integer(F.ceil),
    Fn.SQRT: _unary(F.sqrt),
    Fn.POWER: lambda n, a, b: F.pow(a, b),
    Fn.LEAST: lambda n, *args: F.least(*args),
    Fn.GREATEST: lambda n, *args: F.greatest(*args),
    Fn.LN: _sql("ln"),  # Spark's logarithms are NULL for zero and below
    Fn.LOG10: _sql("log10"),
    Fn.LOG2: _sql("log2"),
    Fn.EXP: _sql("exp"),
    Fn.SIGN: _sql("signum"),
    Fn.YEAR: _time_part(F.year),
    Fn.MONTH: _time_part(F.month),
    Fn.DAY: _time_part(F.dayofmonth),
    Fn.HOUR: _time_part(F.hour),
    Fn.MINUTE: _time_part(F.minute),
    Fn.SECOND: _time_part(F.second),
    # try_cast: an unparsable date string is NULL, not a failed query
    Fn.TO_DATE: lambda n, a: a.try_cast("date"),
    # unix_millis/unix_seconds want a zoned timestamp; dates and zone-less timestamps read as UTC
    Fn.EPOCH_MILLIS: _time_part(F.unix_millis),
    Fn.EPOCH_SECONDS: _time_part(F.unix_seconds),
    Fn.TIMESTAMP_SECONDS: _unary(F.timestamp_seconds),
    Fn.DAY_OF_WEEK: _time_part(F.dayofweek),
    Fn.DAY_OF_YEAR: _time_part(F.dayofyear),
    Fn.WEEK_OF_YEAR: _time_part(F.weekofyear),
    Fn.QUARTER: _time_part(F.quarter),
    Fn.LAST_DAY: _unary(F.last_day),
    Fn.DATE_ADD: _int_at(1, _sql("date_add")),
    Fn.DATE_DIFF: _sql("datediff"),
    Fn.ADD_MONTHS: _int_at(1, _sql("add_months")),
    Fn.DATE_FORMAT: _sql("date_format"),
    Fn.ELEMENT_AT: _element_at,
    Fn.GET_FIELD: _get_field,
    Fn.ARRAY_MAP: _higher_order("transform"),
    Fn.ARRAY_FILTER: _higher_order("filter"),
    Fn.FLATTEN: _unary(F.flatten),
    Fn.SLICE: _slice,
    Fn.SIZE: _sql("size"),  # NULL for NULL, with ANSI on
    Fn.ARRAY_DISTINCT: _sql("array_distinct"),
    Fn.ARRAY_CONTAINS: _sql("array_contains"),
    Fn.MAKE_ARRAY: lambda n, *args: F.array(*args),
    Fn.MAKE_STRUCT: _make_struct,
    Fn.MAP_KEYS: _sql("map_keys"),
    Fn.MAP_VALUES: _sql("map_values"),
    # get_json_object yields NULL for text that does not parse and a string's content unquoted
    Fn.JSON_PARSE: lambda n, doc: F.get_json_object(doc, "$"),
    Fn.JSON_FIELD: _json_field,
    Fn.JSON_ITEMS: lambda n, doc: F.from_json(doc, "array<string>"),
}

AGGREGATES: dict[AggFn, str] = {
    AggFn.COUNT: "count",
    AggFn.SUM: "try_sum",  # beyond 64 bits: NULL (ANSI sum would fail the whole fused query)
    AggFn.AVG: "avg",
    AggFn.MIN: "min",
    AggFn.MAX: "max",
    AggFn.STDDEV_SAMP: "stddev_samp",
    AggFn.STDDEV_POP: "stddev_pop",
    AggFn.VAR_SAMP: "var_samp",
    AggFn.VAR_POP: "var_pop",
    AggFn.ANY_VALUE: "any_value",
}
"""Spark names of the aggregates with one argument (COUNT_ALL is handled on its own)."""

WINDOWS: dict[WindowFn, Callable[[], Column]] = {
    WindowFn.ROW_NUMBER: F.row_number,
    WindowFn.COUNT_ALL: lambda: F.count(F.lit(1)),
}
