"""The functions a rule may call, with their arity and result types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .plan import AggFn, Fn
from .types import DATE, DOUBLE, INTEGER, STRING, DataType, Kind, common_numeric

# A type rule gets the argument types and returns the result type, or a message saying
# which argument is wrong.
TypeRule = Callable[[list[DataType]], "DataType | str"]


@dataclass(frozen=True)
class Function:
    """A user-callable function: a scalar ``Fn`` or an aggregate ``AggFn``."""

    name: str
    op: Fn | AggFn
    min_args: int
    max_args: int | None  # None: any number
    result: TypeRule

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
    if types[0].kind not in (Kind.DATE, Kind.TIMESTAMP, Kind.NULL, Kind.OTHER):
        return f"argument 1 must be a date or timestamp, got {types[0]}"
    return result


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
    # strings
    Function("upper", Fn.UPPER, 1, 1, lambda t: _strings(t, STRING)),
    Function("lower", Fn.LOWER, 1, 1, lambda t: _strings(t, STRING)),
    Function("trim", Fn.TRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("ltrim", Fn.LTRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("rtrim", Fn.RTRIM, 1, 1, lambda t: _strings(t, STRING)),
    Function("length", Fn.LENGTH, 1, 1, lambda t: _strings(t, INTEGER)),
    Function("substring", Fn.SUBSTRING, 2, 3, lambda t: _strings(t, STRING, numeric_from=2)),
    Function("substr", Fn.SUBSTRING, 2, 3, lambda t: _strings(t, STRING, numeric_from=2)),
    Function("concat", Fn.CONCAT, 1, None, lambda t: _strings(t, STRING)),
    Function("replace", Fn.REPLACE, 2, 3, lambda t: _strings(t, STRING)),
    # numbers
    Function("abs", Fn.ABS, 1, 1, lambda t: _numeric(t, lambda ts: ts[0])),
    Function("round", Fn.ROUND, 1, 2, lambda t: _numeric(t, lambda ts: ts[0])),
    Function("floor", Fn.FLOOR, 1, 1, lambda t: _numeric(t, lambda _: INTEGER)),
    Function("ceil", Fn.CEIL, 1, 1, lambda t: _numeric(t, lambda _: INTEGER)),
    Function("sqrt", Fn.SQRT, 1, 1, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("power", Fn.POWER, 2, 2, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("pow", Fn.POWER, 2, 2, lambda t: _numeric(t, lambda _: DOUBLE)),
    Function("least", Fn.LEAST, 2, None, _same_family),
    Function("greatest", Fn.GREATEST, 2, None, _same_family),
    Function("coalesce", Fn.COALESCE, 1, None, _same_family),
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
]

FUNCTIONS: dict[str, Function] = {f.name: f for f in _FUNCTIONS}
