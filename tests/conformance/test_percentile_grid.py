"""PERCENTILE_DISC is exact on both engines: the smallest v with at least p of the values <= v.

Both engines compute ranks in floating point inside (Spark's ceil(p * n) overshoots for 0.07 * 100),
so the contract is checked on a grid of fractions and sizes against exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pyarrow as pa

from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Field,
    Fn,
    Literal,
    Named,
    Plan,
    Query,
    Read,
    Sort,
    SortKey,
    count_all,
)
from gryph.compiler.plan.data_types import BOOLEAN, DOUBLE, INTEGER, STRING, schema
from gryph.compiler.sources.source_specs import SourceSpec

FRACTIONS = [i / 100 for i in range(101)] + [0.001, 0.125, 0.333, 0.995, 0.999]
SIZES = [1, 2, 3, 7, 10, 29, 57, 100, 101, 997, 1000]


def _expected(values: list[int], p: float) -> int:
    rank = max(1, math.ceil(Fraction(str(p)) * len(values)))
    return sorted(values)[rank - 1]


def test_percentile_disc_is_exact(dq_engine):
    queries, expected = [], {}
    for n in SIZES:
        # values 3, 6, 9, ... shuffled, so order of arrival does not matter
        values = [3 * ((i * 7919) % n + 1) for i in range(n)]
        source = f"t{n}"
        read = Read(source, schema(("x", INTEGER)))
        measures = tuple(
            Named(AggregateCall(AggFn.PERCENTILE_DISC, (Field("x", INTEGER), Literal(p, DOUBLE)), INTEGER), f"p{i}")
            for i, p in enumerate(FRACTIONS)
        )
        queries.append(Query(source, Aggregate(read, (), measures)))
        expected[source] = (
            {f"p{i}": _expected(values, p) for i, p in enumerate(FRACTIONS)},
            SourceSpec(source, "frame", frame=pa.table({"x": pa.array(values, pa.int64())})),
        )
    rows = dq_engine.run(Plan((), tuple(queries)), {name: spec for name, (_, spec) in expected.items()})
    for name, (want, _) in expected.items():
        assert rows[name] == [want], name


def test_percentile_ignores_nulls_and_is_null_on_empty_input(dq_engine):
    read = Read("t", schema(("x", INTEGER)))
    half = AggregateCall(AggFn.PERCENTILE_DISC, (Field("x", INTEGER), Literal(0.5, DOUBLE)), INTEGER)
    frame = pa.table({"x": pa.array([None, 4, None, 8, 6], pa.int64())})
    empty = pa.table({"x": pa.array([], pa.int64())})
    plan = Plan((), (Query("q", Aggregate(read, (), (Named(half, "median"),))),))
    # non-NULL values 4, 6, 8: the smallest v with at least half of them <= v is 6
    assert dq_engine.run(plan, {"t": SourceSpec("t", "frame", frame=frame)}) == {"q": [{"median": 6}]}
    assert dq_engine.run(plan, {"t": SourceSpec("t", "frame", frame=empty)}) == {"q": [{"median": None}]}


def test_percentiles_of_one_value_share_a_list_per_filter_and_group(dq_engine):
    """Several fractions of one value over the same rows (DuckDB computes them as one list)."""
    frame = pa.table(
        {
            "g": ["a", "a", "a", "a", "a", "b", "b"],
            "x": pa.array([5, 1, 3, None, 9, 2, 8], pa.int64()),
            "y": pa.array([1, 0, 1, 1, 1, 1, 1], pa.int64()),
            "d": pa.array([2.5, 0.5, 1.5, 3.5, None, 4.0, -1.0], pa.float64()),
        }
    )
    read = Read("t", schema(("g", STRING), ("x", INTEGER), ("y", INTEGER), ("d", DOUBLE)))
    positive = Call(Fn.GT, (Field("y", INTEGER), Literal(0, INTEGER)), BOOLEAN)

    def pct(column, dtype, p, condition=None):
        return AggregateCall(AggFn.PERCENTILE_DISC, (Field(column, dtype), Literal(p, DOUBLE)), dtype, filter=condition)

    measures = (
        Named(pct("x", INTEGER, 0.5, positive), "x50_positive"),
        Named(count_all(), "__percentiles0"),  # a measure may carry the name an engine would pick
        Named(pct("x", INTEGER, 0.9, positive), "x90_positive"),
        Named(pct("x", INTEGER, 0.5), "x50"),
        Named(pct("x", INTEGER, 1.0), "x100"),
        Named(pct("d", DOUBLE, 0.5), "d50"),
        Named(pct("d", DOUBLE, 0.25), "d25"),
        Named(pct("d", DOUBLE, 0.75, positive), "d75_positive"),  # alone with its filter
    )
    grouped = Sort(Aggregate(read, (Named(Field("g", STRING), "g"),), measures), (SortKey(Field("g", STRING)),))
    rows = dq_engine.run(Plan((), (Query("q", grouped),)), {"t": SourceSpec("t", "frame", frame=frame)})
    # a: x with y > 0 is {3, 5, 9} (NULL ignored): ranks ceil(1.5) = 2 -> 5, ceil(2.7) = 3 -> 9;
    #    all x {1, 3, 5, 9}: rank 2 -> 3, rank 4 -> 9; d {0.5, 1.5, 2.5, 3.5}: rank 2 -> 1.5,
    #    rank 1 -> 0.5; d with y > 0 {1.5, 2.5, 3.5}: rank ceil(2.25) = 3 -> 3.5
    # b: x {2, 8}: rank 1 -> 2, rank ceil(1.8) = 2 -> 8; d {-1.0, 4.0}: rank 1 -> -1.0 (twice),
    #    rank ceil(1.5) = 2 -> 4.0
    assert rows["q"] == [
        {
            "g": "a",
            "x50_positive": 5,
            "__percentiles0": 5,
            "x90_positive": 9,
            "x50": 3,
            "x100": 9,
            "d50": 1.5,
            "d25": 0.5,
            "d75_positive": 3.5,
        },
        {
            "g": "b",
            "x50_positive": 2,
            "__percentiles0": 2,
            "x90_positive": 8,
            "x50": 2,
            "x100": 8,
            "d50": -1.0,
            "d25": -1.0,
            "d75_positive": 4.0,
        },
    ]
