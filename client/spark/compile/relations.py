"""Plan relations -> PySpark Connect DataFrames: one function per node type."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import singledispatch

from pyspark.sql import Column, DataFrame
from pyspark.sql.connect import functions as F
from pyspark.sql.connect.session import SparkSession

from gryph.compiler.engine import unsupported
from gryph.compiler.errors import EngineError
from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Distinct,
    Filter,
    Join,
    JoinKind,
    Limit,
    Named,
    PercentileSet,
    Project,
    Read,
    Sort,
    Sql,
    Window,
    free_prefix,
    walk_relations,
)
from gryph.compiler.spark_dialect.user_sql import spark_query_as_run

from ..capabilities import CAPABILITIES
from .scalars import column, compile_scalar, quoted, sort_key
from .type_mapping import to_spark

# Spark turns whole-stage code generation off above this many output columns (the query still
# runs, more slowly); wider aggregates raise the limit while their queries run (``wide_codegen``).
CODEGEN_MAX_FIELDS = 100
CODEGEN_SETTING = "spark.sql.codegen.maxFields"

JOIN_TYPES = {
    JoinKind.INNER: "inner",
    JoinKind.LEFT: "left",
    JoinKind.ANTI: "left_anti",
    JoinKind.SEMI: "left_semi",
}


@dataclass
class Context:
    """What a relation compiles against: the session and the DataFrames of sources and views."""

    spark: SparkSession
    tables: dict[str, DataFrame]
    widest: int = 0  # output columns of the widest aggregate compiled so far


@contextlib.contextmanager
def wide_codegen(ctx: Context) -> Iterator[None]:
    """While the block runs, the session generates code for the widest aggregate compiled in
    ``ctx``; the setting is as it was afterwards."""
    if ctx.widest <= CODEGEN_MAX_FIELDS:
        yield
        return
    previous = ctx.spark.conf.get(CODEGEN_SETTING)
    ctx.spark.conf.set(CODEGEN_SETTING, str(ctx.widest))
    try:
        yield
    finally:
        if previous is None:
            ctx.spark.conf.unset(CODEGEN_SETTING)
        else:
            ctx.spark.conf.set(CODEGEN_SETTING, previous)


def has_sql(relations) -> bool:
    """Whether Spark SQL text runs in ``relations``: it may name any source, view or catalog table."""
    return any(isinstance(node, Sql) for rel in relations for node in walk_relations(rel))


@singledispatch
def compile_relation(rel: object, ctx: Context) -> DataFrame:
    """The DataFrame of a plan relation."""
    raise unsupported(f"relation {type(rel).__name__}", CAPABILITIES.engine)


@compile_relation.register
def _read(rel: Read, ctx: Context) -> DataFrame:
    df = ctx.tables.get(rel.source)
    if df is None:
        raise EngineError(
            "SOURCE_UNKNOWN", f"the plan reads {rel.source!r}, which is neither a source nor a view of this run"
        )
    # Exactly the columns the compiler checked, under its spelling (Spark matches case-insensitively).
    return df.select(*(column(name).alias(name) for name in rel.source_schema.names))


@compile_relation.register
def _sql(rel: Sql, ctx: Context) -> DataFrame:
    text = rel.text
    if rel.dialect != "spark":
        import sqlglot

        text = sqlglot.transpile(text, read=rel.dialect, write="spark")[0]
    return ctx.spark.sql(spark_query_as_run(text))


@compile_relation.register
def _filter(rel: Filter, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).filter(compile_scalar(rel.condition))


@compile_relation.register
def _project(rel: Project, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).select(*(compile_scalar(c.expr).alias(c.name) for c in rel.columns))


def splits_in_two(rel: Aggregate) -> bool:
    """Whether an aggregate runs as two over its input: one for DISTINCT counts, one for the rest.

    Spark expands the rows once per DISTINCT aggregate and keeps a percentile's buffer for each
    copy (tens of times slower), so a global aggregate with both is two, cross-joined.
    """
    return (
        not rel.keys
        and any(_measure_call(m).distinct for m in rel.measures)
        and any(_measure_call(m).fn is AggFn.PERCENTILE_DISC for m in rel.measures)
    )


def _measure_call(measure: Named) -> AggregateCall:
    """An aggregate's measure as the call it is (Aggregate checks that each is one when built)."""
    assert isinstance(measure.expr, AggregateCall)
    return measure.expr


@compile_relation.register
def _aggregate(rel: Aggregate, ctx: Context) -> DataFrame:
    df = compile_relation(rel.input, ctx)
    keys = [compile_scalar(k.expr).alias(k.name) for k in rel.keys]
    if not rel.measures:
        return df.select(*keys).distinct()
    plain = [m for m in rel.measures if _measure_call(m).fn is not AggFn.PERCENTILE_DISC]
    measures = [compile_scalar(m.expr).alias(m.name) for m in plain]
    distinct = [_measure_call(m).distinct for m in plain]
    # Percentiles of one value over the same rows: one percentile_disc over an array of
    # fractions (Spark keeps and orders one buffer of values instead of one per fraction).
    percentile_sets = rel.percentile_sets()
    prefix = free_prefix("__percentiles", list(rel.input.schema.names) + [n.name for n in rel.keys + rel.measures])
    element: dict[str, Column] = {}
    for i, group in enumerate(percentile_sets):
        df, call = _percentiles(df, group, f"{prefix}_arg{i}")
        measures.append(call.alias(f"{prefix}{i}"))
        distinct.append(False)
        element.update((name, column(f"{prefix}{i}")[k]) for k, (name, _) in enumerate(group.members))
    ctx.widest = max(ctx.widest, len(keys) + len(measures))
    if rel.grouping is not None:
        out = _grouping_sets(df, rel, measures)
    elif keys:
        out = df.groupBy(*keys).agg(*measures)
    elif splits_in_two(rel):
        out = df.agg(*(c for c, d in zip(measures, distinct, strict=True) if not d)).crossJoin(
            df.agg(*(c for c, d in zip(measures, distinct, strict=True) if d))
        )
    else:
        out = df.agg(*measures)
    if not percentile_sets:
        return out
    return out.select(
        *(column(n.name) for n in rel.keys),
        *(
            element[m.name].cast(to_spark(m.expr.dtype)).alias(m.name) if m.name in element else column(m.name)
            for m in rel.measures
        ),
        *([] if rel.grouping is None else [column(rel.grouping.column)]),
    )


def _grouping_sets(df: DataFrame, rel: Aggregate, measures: list[Column]) -> DataFrame:
    """``rel``'s grouping sets in one aggregate. The keys are computed into columns of their own
    first (grouping sets name the grouping columns), and each row's set told by grouping_id()'s
    bits (a key's bit, the first key's the highest, is 1 where the row's set leaves it out)."""
    assert rel.grouping is not None
    prefix = free_prefix("__key", list(rel.input.schema.names))
    keyed = df.select("*", *(compile_scalar(k.expr).alias(f"{prefix}{i}") for i, k in enumerate(rel.keys)))
    at = {k.name: i for i, k in enumerate(rel.keys)}
    index = F.lit(None)
    for i, keys in enumerate(rel.grouping.sets):
        mask = sum(1 << (len(at) - 1 - j) for name, j in at.items() if name not in keys)
        index = F.when(F.grouping_id() == mask, i).otherwise(index)
    sets = [[column(f"{prefix}{at[name]}") for name in keys] for keys in rel.grouping.sets]
    grouped = keyed.groupingSets(sets, *(column(f"{prefix}{i}") for i in range(len(at))))
    out = grouped.agg(*measures, index.cast("long").alias(rel.grouping.column))
    return out.withColumnsRenamed({f"{prefix}{i}": k.name for i, k in enumerate(rel.keys)})


def _percentiles(df: DataFrame, group: PercentileSet, argument: str) -> tuple[DataFrame, Column]:
    """percentile_disc exists only as SQL's WITHIN GROUP form: order by a column we add.

    Spark finds the rank as ceil(p * n) in floating point, which overshoots when p * n lands
    just above an integer (0.07 * 100); a fraction 1e-14 smaller gives the exact rank for
    every realistic n (checked on a grid in tests/conformance/test_percentile_grid.py).
    """
    value = compile_scalar(group.value)
    if group.filter is not None:
        value = F.when(compile_scalar(group.filter), value)
    fractions = ", ".join(repr(f - f * 1e-14) for _, f in group.members)
    call = F.expr(f"percentile_disc(array({fractions})) WITHIN GROUP (ORDER BY {quoted(argument)})")
    return df.withColumn(argument, value), call


@compile_relation.register
def _join(rel: Join, ctx: Context) -> DataFrame:
    left, right = compile_relation(rel.left, ctx), compile_relation(rel.right, ctx)
    if rel.kind is JoinKind.CROSS:
        return left.crossJoin(right)
    if rel.shuffled:  # a sort-merge join: a broadcast of a source-sized side fails the driver's memory
        right = right.hint("merge")
    # The two sides never share a column name, so plain names resolve unambiguously.
    return left.join(right, on=compile_scalar(rel.on), how=JOIN_TYPES[rel.kind])


@compile_relation.register
def _distinct(rel: Distinct, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).distinct()


@compile_relation.register
def _sort(rel: Sort, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).orderBy(*(sort_key(k) for k in rel.keys))


@compile_relation.register
def _limit(rel: Limit, ctx: Context) -> DataFrame:
    return compile_relation(rel.input, ctx).limit(rel.count)


@compile_relation.register
def _window(rel: Window, ctx: Context) -> DataFrame:
    df = compile_relation(rel.input, ctx)
    return df.select(
        *(column(name) for name in rel.input.schema.names), *(compile_scalar(c.expr).alias(c.name) for c in rel.columns)
    )
