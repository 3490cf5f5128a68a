"""PERCENTILE_DISC is exact on both engines: the smallest v with at least p of the values <= v.

Both engines compute ranks in floating point inside (Spark's ceil(p * n) overshoots for 0.07 * 100),
so the contract is checked on a grid of fractions and sizes against exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pyarrow as pa

from gryph.compiler.plan import AggFn, Aggregate, AggregateCall, Field, Literal, Named, Plan, Query, Read
from gryph.compiler.sources import SourceSpec
from gryph.compiler.types import DOUBLE, INTEGER, schema

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
        measures = tuple(Named(AggregateCall(AggFn.PERCENTILE_DISC, (Field("x", INTEGER), Literal(p, DOUBLE)),
                                             INTEGER), f"p{i}") for i, p in enumerate(FRACTIONS))
        queries.append(Query(source, Aggregate(read, (), measures)))
        expected[source] = ({f"p{i}": _expected(values, p) for i, p in enumerate(FRACTIONS)},
                            SourceSpec(source, "frame", frame=pa.table({"x": pa.array(values, pa.int64())})))
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
