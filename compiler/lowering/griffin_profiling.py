"""Griffin's generation-B profiling measure: per column, the statistics of Griffin's
ProfilingMeasure, all from the source's shared scan but kurtosis (a second pass over the rows,
centred on each column's mean, so that both engines compute it the same stable way).

Numbers follow Spark: variance and std_dev are the sample versions, kurtosis the population
excess kurtosis (NULL without spread), avg/std_dev/variance/kurtosis rounded half-even to
``round.scale`` places as ``bround`` rounds a double (its shortest decimal text). A statistic
that is NULL is 0, as Griffin's ``nullToZero`` writes it. Distinct values are counted exactly,
also under Griffin's ``approx_distinct_count`` name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Context, Decimal

from ..analysis.checked_rules import CheckedMeasureProfiling
from ..plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Field,
    Fn,
    IsNull,
    Join,
    JoinKind,
    Named,
    Read,
    Scalar,
    coerce,
    count_all,
    free_prefix,
)
from ..plan.data_types import DOUBLE, INTEGER, STRING, DataType, Kind
from ..results import RuleResult
from ..rule_kinds import RuleKind
from .common import Finisher
from .griffin_measure import GriffinMeasureLowering
from .query_collector import Results, ValueRef

_NUMERIC = (Kind.INTEGER, Kind.DOUBLE, Kind.DECIMAL)
# kinds Spark's length() reads as text
_TEXTUAL = (*_NUMERIC, Kind.STRING, Kind.BOOLEAN, Kind.DATE, Kind.TIMESTAMP, Kind.JSON)
_ROUNDED = ("avg", "std_dev", "variance", "kurtosis")
# Spark's catalog names of gryph's types (integers are computed as 64-bit: bigint)
_SPARK_NAMES = {
    Kind.BOOLEAN: "boolean",
    Kind.INTEGER: "bigint",
    Kind.DOUBLE: "double",
    Kind.STRING: "string",
    Kind.DATE: "date",
    Kind.TIMESTAMP: "timestamp",
    Kind.BINARY: "binary",
    Kind.JSON: "string",
    Kind.NULL: "void",
}


def spark_type_name(dtype: DataType) -> str:
    """A type as Spark's ``catalogString`` writes it."""
    if dtype.kind is Kind.DECIMAL and dtype.args:
        return "decimal({},{})".format(*dtype.args)
    if not dtype.args:
        return _SPARK_NAMES.get(dtype.kind, dtype.kind.value)
    parts = (
        [f"{n}:{spark_type_name(t)}" for n, t in dtype.args]
        if dtype.kind is Kind.STRUCT
        else [spark_type_name(t) for t in dtype.args]
    )
    return f"{dtype.kind.value}<{','.join(parts)}>"


def bround(value: float | None, scale: int) -> float | None:
    """Spark's ``bround`` of a double: half-even on its shortest decimal text."""
    if value is None or not math.isfinite(value):
        return value
    exact = Decimal(repr(float(value)))
    return float(exact.quantize(Decimal(1).scaleb(-scale), ROUND_HALF_EVEN, Context(prec=1000)))


class ProfilingMeasureLowering(GriffinMeasureLowering[CheckedMeasureProfiling]):
    kinds = (RuleKind.GRIFFIN_PROFILING,)

    def lower(self) -> Finisher:
        config = self.checked
        read = self.read(config.source)
        columns = config.columns
        total_ref = self.collector.value(read, count_all())
        refs = {f.name: self._statistics(read, f) for f in columns}
        kurtosis = self._kurtosis(read, [f for f in columns if f.dtype.kind in _NUMERIC])
        distinct_name = "approx_distinct_count" if config.approximate_name else "distinct_count"

        def finish(results: Results) -> RuleResult:
            total = results.value(total_ref) or 0
            metrics = {}
            for f in columns:
                stats = {key: results.value(ref) for key, ref in refs[f.name].items()}
                if f.name in kurtosis:
                    stats["kurtosis"] = kurtosis[f.name](results)
                row = {"data_type": spark_type_name(f.dtype), "total": total}
                for key in (
                    "min_col_len",
                    "max_col_len",
                    "avg_col_len",
                    "min",
                    "max",
                    "avg",
                    "std_dev",
                    "variance",
                    "kurtosis",
                ):
                    value = stats.get(key)
                    row[key] = bround(value, config.round_scale) if key in _ROUNDED else value
                row[distinct_name] = stats.get("distinct")
                row["null_count"] = stats["null_count"]
                metrics[f.name] = {key: 0 if value is None else value for key, value in row.items()}
            return self.result(results, metrics, 0, None)

        return finish

    def _statistics(self, read: Read, value: Field) -> dict[str, ValueRef]:
        """Everything but kurtosis, from the source's shared scan."""

        def of(fn: AggFn, arg: Scalar, dtype: DataType, distinct: bool = False) -> ValueRef:
            return self.collector.value(read, AggregateCall(fn, (arg,), dtype, distinct))

        refs = {"null_count": self.collector.value(read, count_all(filter=IsNull(value)))}
        if value.dtype.kind is not Kind.MAP:  # maps cannot be compared, so not counted
            refs["distinct"] = of(AggFn.COUNT, value, INTEGER, distinct=True)
        if value.dtype.kind in _TEXTUAL:
            length = Call(Fn.LENGTH, (coerce(value, STRING),), INTEGER)
            refs.update(
                min_col_len=of(AggFn.MIN, length, INTEGER),
                max_col_len=of(AggFn.MAX, length, INTEGER),
                avg_col_len=of(AggFn.AVG, length, DOUBLE),
            )
        if value.dtype.kind in _NUMERIC:
            number = coerce(value, DOUBLE)
            refs.update(
                min=of(AggFn.MIN, value, value.dtype),
                max=of(AggFn.MAX, value, value.dtype),
                avg=of(AggFn.AVG, number, DOUBLE),
                std_dev=of(AggFn.STDDEV_SAMP, number, DOUBLE),
                variance=of(AggFn.VAR_SAMP, number, DOUBLE),
            )
        return refs

    def _kurtosis(self, read: Read, numeric: list[Field]) -> dict[str, Callable[[Results], float | None]]:
        """Per numeric column, a reader of ``n * m4 / m2^2 - 3`` over moments about the mean."""
        if not numeric:
            return {}
        prefix = free_prefix("__mean", read.schema)
        numbers = [coerce(f, DOUBLE) for f in numeric]
        means = Aggregate(
            read,
            (),
            tuple(Named(AggregateCall(AggFn.AVG, (x,), DOUBLE), f"{prefix}{i}") for i, x in enumerate(numbers)),
        )
        centred = Join(JoinKind.CROSS, read, means, None)
        readers = {}
        for i, (f, x) in enumerate(zip(numeric, numbers, strict=True)):
            deviation = Call(Fn.SUBTRACT, (x, Field(f"{prefix}{i}", DOUBLE)), DOUBLE)
            square = Call(Fn.MULTIPLY, (deviation, deviation), DOUBLE)
            n = self.collector.value(read, AggregateCall(AggFn.COUNT, (f,), INTEGER))
            m2 = self.collector.value(centred, AggregateCall(AggFn.SUM, (square,), DOUBLE))
            m4 = self.collector.value(
                centred, AggregateCall(AggFn.SUM, (Call(Fn.MULTIPLY, (square, square), DOUBLE),), DOUBLE)
            )
            readers[f.name] = _kurtosis_reader(n, m2, m4)
        return readers


def _kurtosis_reader(n_ref: ValueRef, m2_ref: ValueRef, m4_ref: ValueRef) -> Callable[[Results], float | None]:
    def kurtosis(results: Results) -> float | None:
        n, m2, m4 = results.value(n_ref), results.value(m2_ref), results.value(m4_ref)
        if not n or m2 is None or m2 == 0:
            return None  # Spark: NULL without values or without spread
        return float(n * m4 / (m2 * m2) - 3.0)

    return kurtosis
