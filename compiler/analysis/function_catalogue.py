"""The functions a rule may call, with their arity, result types and how each becomes plan nodes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..plan import AggFn, Fn
from ..plan.data_types import (
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    STRING,
    TIMESTAMP,
    DataType,
    Kind,
    array,
    common_numeric,
    comparable,
)
from . import function_builders as build
from .function_builders import Builder

# A type rule gets the argument types and returns the result type, or a message saying
# which argument is wrong.
TypeRule = Callable[[list[DataType]], "DataType | str"]


@dataclass(frozen=True)
class Function:
    """A user-callable function: a scalar ``Fn`` or an aggregate ``AggFn``, or a ``build`` of plan nodes.

    A built aggregate names in ``op`` the aggregate it builds, so the resolver knows it is one.
    """

    name: str
    op: Fn | AggFn | None
    min_args: int
    max_args: int | None  # None: any number
    result: TypeRule
    build: Builder | None = None

    @property
    def is_aggregate(self) -> bool:
        return isinstance(self.op, AggFn)

    def arity_text(self) -> str:
        if self.max_args is None:
            return f"at least {self.min_args}"
        if self.min_args == self.max_args:
            return str(self.min_args)
        return f"{self.min_args} to {self.max_args}"


def _numeric(types: list[DataType], result: Callable[[list[DataType]], DataType]) -> DataType | str:
    for position, t in enumerate(types, 1):
        if not t.is_numeric and t.kind is not Kind.OTHER:
            return f"argument {position} must be a number, got {t}"
    return result(types)


def _strings(types: list[DataType], result: DataType, numeric_from: int = 99) -> DataType | str:
    for position, t in enumerate(types, 1):
        wanted_number = position >= numeric_from
        ok = t.is_numeric if wanted_number else t.kind in (Kind.STRING, Kind.NULL, Kind.OTHER)
        if not ok:
            what = "a number" if wanted_number else "a string"
            return f"argument {position} must be {what}, got {t}"
    return result


def _temporal(types: list[DataType], result: DataType) -> DataType | str:
    # text is read as Spark reads a time (NULL when it is none), as in a cast
    if types[0].kind not in (Kind.DATE, Kind.TIMESTAMP, Kind.STRING, Kind.NULL, Kind.OTHER):
        return f"argument 1 must be a date or timestamp, got {types[0]}"
    return result


# What an argument may be, by the words an error uses for it; NULL and engine types pass anywhere.
_ACCEPTS: dict[str, Callable[[DataType], bool]] = {
    "a string": lambda t: t.kind is Kind.STRING,
    "a number": lambda t: t.is_numeric,
    "an integer": lambda t: t.kind is Kind.INTEGER,
    "true or false": lambda t: t.kind is Kind.BOOLEAN,
    "a date or timestamp": lambda t: t.is_temporal,
    "a date, a timestamp or time text": lambda t: t.is_temporal or t.kind is Kind.STRING,
    "an array": lambda t: t.kind is Kind.ARRAY,
    "a map": lambda t: t.kind is Kind.MAP,
    "an array or a map": lambda t: t.kind in (Kind.ARRAY, Kind.MAP),
    "anything": lambda t: True,
}


_TIME_OR_TEXT = "a date, a timestamp or time text"


def _typed(*wanted: str, result: DataType | TypeRule) -> TypeRule:
    """A rule from what each argument must be (the last kind repeats) and the result type."""

    def rule(types: list[DataType]) -> DataType | str:
        for position, t in enumerate(types, 1):
            what = wanted[min(position, len(wanted)) - 1]
            if t.kind not in (Kind.NULL, Kind.OTHER) and not _ACCEPTS[what](t):
                return f"argument {position} must be {what}, got {t}"
        return result(types) if callable(result) else result

    return rule


def _same_family(types: list[DataType]) -> DataType | str:
    concrete = [t for t in types if t.kind is not Kind.NULL]
    if not concrete:
        return types[0]
    if all(t.is_numeric for t in concrete):
        result = concrete[0]
        for t in concrete[1:]:
            result = common_numeric(result, t)
        return result
    if all(t.kind == concrete[0].kind for t in concrete):
        return concrete[0]
    return "arguments must all have the same type; cast them first"


def _integral_or_double(types: list[DataType]) -> DataType:
    return INTEGER if types[0].kind is Kind.INTEGER else DOUBLE


def _arithmetic(types: list[DataType]) -> DataType | str:
    """The type ``a % b`` computes in: decimals in double, as the arithmetic operators do."""
    result = _numeric(types, lambda ts: common_numeric(ts[0], ts[1]))
    return DOUBLE if isinstance(result, DataType) and result.kind is Kind.DECIMAL else result


def _condition_then_else(types: list[DataType]) -> DataType | str:
    if types[0].kind not in (Kind.BOOLEAN, Kind.NULL, Kind.OTHER):
        return f"argument 1 must be true or false, got {types[0]}"
    return _same_family(types[1:])


def _array_and_element(types: list[DataType]) -> DataType | str:
    items, value = types
    if items.kind is not Kind.ARRAY:
        return f"argument 1 must be an array, got {items}"
    if not comparable(items.args[0], value):
        return f"argument 2 must compare with the elements ({items.args[0]}), got {value}"
    return BOOLEAN


def _map_part(index: int) -> TypeRule:
    """The keys (0) or the values (1) of a map, as an array."""

    def rule(types: list[DataType]) -> DataType | str:
        if types[0].kind is not Kind.MAP:
            return f"argument 1 must be a map, got {types[0]}"
        return array(types[0].args[index])

    return rule


def _first_type(types: list[DataType]) -> DataType:
    return types[0]


def _orderable(types: list[DataType]) -> DataType | str:
    if types[0].kind in (Kind.ARRAY, Kind.STRUCT, Kind.MAP):
        return f"cannot order values of type {types[0]}"
    return types[0]


_FUNCTIONS = [
    # aggregates
    Function("count", AggFn.COUNT, 1, 1, lambda t: INTEGER),
    Function("sum", AggFn.SUM, 1, 1, lambda t: _numeric(t, _integral_or_double)),
    Function("avg", AggFn.AVG, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("mean", AggFn.AVG, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("min", AggFn.MIN, 1, 1, _orderable),
    Function("max", AggFn.MAX, 1, 1, _orderable),
    Function("stddev", AggFn.STDDEV_SAMP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("stddev_samp", AggFn.STDDEV_SAMP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("stddev_pop", AggFn.STDDEV_POP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("variance", AggFn.VAR_SAMP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("var_samp", AggFn.VAR_SAMP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("var_pop", AggFn.VAR_POP, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    # exact on both engines, whatever Spark's sketches would give (README: "Exact aggregates")
    Function(
        "approx_count_distinct",
        AggFn.COUNT,
        1,
        2,
        _typed("anything", "a number", result=INTEGER),
        build.approx_count_distinct,
    ),
    Function(
        "percentile_approx",
        AggFn.PERCENTILE_DISC,
        2,
        3,
        _typed("a number", result=_first_type),
        build.percentile_approx,
    ),
    Function(
        "approx_percentile",
        AggFn.PERCENTILE_DISC,
        2,
        3,
        _typed("a number", result=_first_type),
        build.percentile_approx,
    ),
    Function("count_if", AggFn.COUNT, 1, 1, _typed("true or false", result=INTEGER), build.count_if),
    # some non-NULL value: which one, when the rows differ, is not defined (README)
    Function("first", AggFn.ANY_VALUE, 1, 2, _typed("anything", "true or false", result=_first_type), build.any_value),
    Function("last", AggFn.ANY_VALUE, 1, 2, _typed("anything", "true or false", result=_first_type), build.any_value),
    Function(
        "any_value", AggFn.ANY_VALUE, 1, 2, _typed("anything", "true or false", result=_first_type), build.any_value
    ),
    # strings
    Function("upper", Fn.UPPER, 1, 1, lambda t: _strings(t, STRING)),
    Function("lower", Fn.LOWER, 1, 1, lambda t: _strings(t, STRING)),
    Function("trim", Fn.TRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("ltrim", Fn.LTRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("rtrim", Fn.RTRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("length", Fn.LENGTH, 1, 1, lambda t: _strings(t, INTEGER)),
    Function("substring", Fn.SUBSTRING, 2, 3, lambda t: _strings(t, STRING, numeric_from=2), build.substring),
    Function("substr", Fn.SUBSTRING, 2, 3, lambda t: _strings(t, STRING, numeric_from=2), build.substring),
    Function("concat", Fn.CONCAT, 1, None, lambda t: _strings(t, STRING)),
    Function("replace", Fn.REPLACE, 2, 3, lambda t: _strings(t, STRING)),
    Function("char_length", Fn.LENGTH, 1, 1, lambda t: _strings(t, INTEGER)),
    Function("character_length", Fn.LENGTH, 1, 1, lambda t: _strings(t, INTEGER)),
    Function("concat_ws", Fn.CONCAT_WS, 2, None, _typed("a string", result=STRING)),
    Function(
        "lpad",
        None,
        2,
        3,
        _typed("a string", "an integer", "a string", result=STRING),
        build.with_default(Fn.LPAD, " "),
    ),
    Function(
        "rpad",
        None,
        2,
        3,
        _typed("a string", "an integer", "a string", result=STRING),
        build.with_default(Fn.RPAD, " "),
    ),
    Function("instr", Fn.STRPOS, 2, 2, _typed("a string", result=INTEGER)),
    Function("locate", None, 2, 2, _typed("a string", result=INTEGER), build.swapped(Fn.STRPOS)),
    Function("left", None, 2, 2, _typed("a string", "an integer", result=STRING), build.left),
    Function("right", None, 2, 2, _typed("a string", "an integer", result=STRING), build.right),
    Function("repeat", Fn.REPEAT, 2, 2, _typed("a string", "an integer", result=STRING)),
    Function("reverse", Fn.REVERSE, 1, 1, _typed("a string", result=STRING)),
    Function("startswith", Fn.STARTS_WITH, 2, 2, _typed("a string", result=BOOLEAN)),
    Function("endswith", Fn.ENDS_WITH, 2, 2, _typed("a string", result=BOOLEAN)),
    Function("contains", Fn.CONTAINS, 2, 2, _typed("a string", result=BOOLEAN)),
    Function(
        "regexp_extract", None, 2, 3, _typed("a string", "a string", "an integer", result=STRING), build.regexp_extract
    ),
    Function("regexp_replace", None, 3, 3, _typed("a string", result=STRING), build.regexp_replace),
    Function("split", Fn.SPLIT, 2, 2, _typed("a string", result=array(STRING)), build.split),
    # numbers
    Function("abs", Fn.ABS, 1, 1, lambda t: _numeric(t, lambda ts: ts[0])),
    Function("round", Fn.ROUND, 1, 2, lambda t: _numeric(t, lambda ts: ts[0])),
    Function("floor", Fn.FLOOR, 1, 1, lambda t: _numeric(t, lambda _: INTEGER)),
    Function("ceil", Fn.CEIL, 1, 1, lambda t: _numeric(t, lambda _: INTEGER)),
    Function("sqrt", Fn.SQRT, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("power", Fn.POWER, 2, 2, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("pow", Fn.POWER, 2, 2, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("mod", Fn.MODULO, 2, 2, _arithmetic, build.unified(Fn.MODULO)),
    Function("pmod", None, 2, 2, _arithmetic, build.pmod),
    Function("ln", Fn.LN, 1, 1, _typed("a number", result=DOUBLE)),
    Function("log10", Fn.LOG10, 1, 1, _typed("a number", result=DOUBLE)),
    Function("log2", Fn.LOG2, 1, 1, _typed("a number", result=DOUBLE)),
    Function("exp", Fn.EXP, 1, 1, _typed("a number", result=DOUBLE)),
    Function("sign", Fn.SIGN, 1, 1, _typed("a number", result=DOUBLE)),
    Function("signum", Fn.SIGN, 1, 1, _typed("a number", result=DOUBLE)),
    Function("isnan", Fn.IS_NAN, 1, 1, _typed("a number", result=BOOLEAN)),
    Function("nanvl", None, 2, 2, _typed("a number", result=DOUBLE), build.nanvl),
    Function("least", Fn.LEAST, 2, None, _same_family, build.unified(Fn.LEAST)),
    Function("greatest", Fn.GREATEST, 2, None, _same_family, build.unified(Fn.GREATEST)),
    Function("coalesce", Fn.COALESCE, 1, None, _same_family, build.unified(Fn.COALESCE)),
    # conditions and NULLs
    Function("nvl", Fn.COALESCE, 2, 2, _same_family, build.unified(Fn.COALESCE)),
    Function("ifnull", Fn.COALESCE, 2, 2, _same_family, build.unified(Fn.COALESCE)),
    Function("nvl2", None, 3, 3, lambda t: _same_family(t[1:]), build.nvl2),
    Function("nullif", None, 2, 2, _same_family, build.nullif),
    Function("if", None, 3, 3, _condition_then_else, build.if_),
    Function("isnull", None, 1, 1, _typed("anything", result=BOOLEAN), build.is_null),
    Function("isnotnull", None, 1, 1, _typed("anything", result=BOOLEAN), build.is_not_null),
    # time
    Function("year", Fn.YEAR, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("month", Fn.MONTH, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("day", Fn.DAY, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("hour", Fn.HOUR, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("minute", Fn.MINUTE, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("second", Fn.SECOND, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("to_date", Fn.TO_DATE, 1, 1, lambda t: _temporal(t, DATE)),
    Function("unix_millis", Fn.EPOCH_MILLIS, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("epoch_ms", Fn.EPOCH_MILLIS, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("dayofmonth", Fn.DAY, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("dayofweek", Fn.DAY_OF_WEEK, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("dayofyear", Fn.DAY_OF_YEAR, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("weekofyear", Fn.WEEK_OF_YEAR, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("quarter", Fn.QUARTER, 1, 1, lambda t: _temporal(t, INTEGER)),
    Function("last_day", None, 1, 1, lambda t: _temporal(t, DATE), build.on_date(Fn.LAST_DAY)),
    Function("date_add", None, 2, 2, _typed(_TIME_OR_TEXT, "an integer", result=DATE), build.on_date(Fn.DATE_ADD)),
    Function("date_sub", None, 2, 2, _typed(_TIME_OR_TEXT, "an integer", result=DATE), build.date_sub),
    Function("add_months", None, 2, 2, _typed(_TIME_OR_TEXT, "an integer", result=DATE), build.on_date(Fn.ADD_MONTHS)),
    Function("datediff", None, 2, 2, _typed(_TIME_OR_TEXT, result=INTEGER), build.datediff),
    Function("date_format", None, 2, 2, _typed(_TIME_OR_TEXT, "a string", result=STRING), build.date_format),
    Function("from_unixtime", None, 1, 2, _typed("an integer", "a string", result=STRING), build.from_unixtime),
    # text needs its pattern in Spark (yyyy-MM-dd HH:mm:ss): to_timestamp reads it as a cast does
    Function("unix_timestamp", None, 0, 1, _typed("a date or timestamp", result=INTEGER), build.unix_timestamp),
    Function("to_timestamp", None, 1, 1, _typed(_TIME_OR_TEXT, result=TIMESTAMP), build.to_timestamp),
    # the run's start, the same on every engine (and in every rule of the run)
    Function("current_date", None, 0, 0, _typed(result=DATE), build.current_date),
    Function("current_timestamp", None, 0, 0, _typed(result=TIMESTAMP), build.current_timestamp),
    Function("now", None, 0, 0, _typed(result=TIMESTAMP), build.current_timestamp),
    # arrays and maps
    Function("size", Fn.SIZE, 1, 1, _typed("an array or a map", result=INTEGER)),
    Function("array_contains", None, 2, 2, _array_and_element, build.array_contains),
    Function("array_distinct", Fn.ARRAY_DISTINCT, 1, 1, _typed("an array", result=_first_type)),
    Function("map_keys", Fn.MAP_KEYS, 1, 1, _map_part(0)),
    Function("map_values", Fn.MAP_VALUES, 1, 1, _map_part(1)),
]

FUNCTIONS: dict[str, Function] = {f.name: f for f in _FUNCTIONS}
