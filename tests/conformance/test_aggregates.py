"""Every ``AggFn`` on both engines, with NULLs, NaN, duplicates, DISTINCT, FILTER, empty and one-row inputs."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Field,
    Filter,
    Fn,
    IsNull,
    Literal,
    Named,
    count_all,
)
from tests.support.comparison import mismatch
from tests.support.plan_helpers import BOOL, DBL, INT, STR, frame_source, multiset, read, run_one

NAN = math.nan
ROWS = pa.table(
    {
        "k": pa.array(["a", "a", "b", None, None], pa.string()),
        "v": pa.array([1, 1, 5, None, 3], pa.int64()),
        "d": pa.array([1.0, NAN, 2.0, None, 4.0], pa.float64()),
    }
)
k, v, d = Field("k", STR), Field("v", INT), Field("d", DBL)


def agg(fn, arg=None, dtype=INT, distinct=False, filter=None):
    if fn is AggFn.COUNT_ALL:
        return count_all(filter)
    return AggregateCall(fn, (arg,), dtype, distinct, filter)


def k_is(value):
    return Call(Fn.EQ, (k, Literal(value, STR)), BOOL)


MEASURES = {
    "count_all": (agg(AggFn.COUNT_ALL), 5),
    "count": (agg(AggFn.COUNT, v), 4),
    "count_nan_counts": (agg(AggFn.COUNT, d), 4),
    "count_distinct": (agg(AggFn.COUNT, v, distinct=True), 3),
    "sum": (agg(AggFn.SUM, v), 10),
    "sum_distinct": (agg(AggFn.SUM, v, distinct=True), 9),
    "avg": (agg(AggFn.AVG, v, DBL), 2.5),
    "avg_distinct": (agg(AggFn.AVG, v, DBL, distinct=True), 3.0),
    "min": (agg(AggFn.MIN, v), 1),
    "max": (agg(AggFn.MAX, v), 5),
    "min_double": (agg(AggFn.MIN, d, DBL), 1.0),
    "max_double_nan": (agg(AggFn.MAX, d, DBL), NAN),
    "stddev_samp": (agg(AggFn.STDDEV_SAMP, v, DBL), math.sqrt(11 / 3)),
    "stddev_pop": (agg(AggFn.STDDEV_POP, v, DBL), math.sqrt(11 / 4)),
    "var_samp": (agg(AggFn.VAR_SAMP, v, DBL), 11 / 3),
    "var_pop": (agg(AggFn.VAR_POP, v, DBL), 11 / 4),
    "var_samp_distinct": (agg(AggFn.VAR_SAMP, v, DBL, distinct=True), 4.0),
    "count_all_filter": (agg(AggFn.COUNT_ALL, filter=Call(Fn.GT, (v, Literal(1, INT)), BOOL)), 2),
    "count_filter": (agg(AggFn.COUNT, d, filter=k_is("a")), 2),
    "count_distinct_filter": (agg(AggFn.COUNT, v, distinct=True, filter=k_is("a")), 1),
    "sum_filter": (agg(AggFn.SUM, v, filter=IsNull(k)), 3),
    "avg_filter": (agg(AggFn.AVG, v, DBL, filter=k_is("a")), 1.0),
    "min_filter_nothing": (agg(AggFn.MIN, v, filter=k_is("zz")), None),
    "max_filter_null": (agg(AggFn.MAX, v, filter=Literal(None, BOOL)), None),
    # v is 1, 1, 3, 5 and NULL: the smallest value with at least half (then 3/4) at or below it
    "percentile_half": (AggregateCall(AggFn.PERCENTILE_DISC, (v, Literal(0.5, DBL)), INT), 1),
    "percentile_three_quarters": (AggregateCall(AggFn.PERCENTILE_DISC, (v, Literal(0.75, DBL)), INT), 3),
    # some non-NULL value: only where the rows agree is the answer defined (k = 'a': 1 and 1)
    "any_value_agreeing": (agg(AggFn.ANY_VALUE, v, filter=k_is("a")), 1),
    "any_value_of_nulls_only": (agg(AggFn.ANY_VALUE, k, STR, filter=IsNull(v)), None),
    # v >= 3 or v is NULL: k is 'b', NULL, NULL; NULLs are skipped
    "any_value_skips_nulls": (
        agg(AggFn.ANY_VALUE, k, STR, filter=Call(Fn.OR, (Call(Fn.GE, (v, Literal(3, INT)), BOOL), IsNull(v)), BOOL)),
        "b",
    ),
}


@pytest.fixture(scope="module")
def source():
    return frame_source("g", ROWS)


def test_measures(dq_engine, source):
    """Every measure in one aggregate: one row, each value as worked out by hand."""
    rel = Aggregate(read(dq_engine, source), (), tuple(Named(e, n) for n, (e, _) in MEASURES.items()))
    rows = run_one(dq_engine, rel, {"g": source})
    assert len(rows) == 1
    wrong = {n: (rows[0][n], want) for n, (_, want) in MEASURES.items() if mismatch(rows[0][n], want)}
    assert not wrong, wrong


def test_cases_cover_every_aggregate():
    assert {e.fn for e, _ in MEASURES.values()} == set(AggFn)


def test_empty_input_gives_one_row(dq_engine, source):
    empty = Filter(read(dq_engine, source), Literal(False, BOOL))
    measures = (
        Named(agg(AggFn.COUNT_ALL), "n"),
        Named(agg(AggFn.COUNT, v), "c"),
        Named(agg(AggFn.SUM, v), "s"),
        Named(agg(AggFn.AVG, v, DBL), "a"),
        Named(agg(AggFn.MIN, v), "lo"),
        Named(agg(AggFn.STDDEV_SAMP, v, DBL), "sd"),
        Named(agg(AggFn.COUNT_ALL, filter=IsNull(k)), "n_filtered"),
        Named(agg(AggFn.SUM, v, filter=IsNull(k)), "s_filtered"),
    )
    rows = run_one(dq_engine, Aggregate(empty, (), measures), {"g": source})
    assert rows == [{"n": 0, "c": 0, "s": None, "a": None, "lo": None, "sd": None, "n_filtered": 0, "s_filtered": None}]


def test_one_row_spread(dq_engine, source):
    one = Filter(read(dq_engine, source), Call(Fn.EQ, (v, Literal(5, INT)), BOOL))
    measures = tuple(
        Named(agg(fn, v, DBL), fn.value) for fn in (AggFn.STDDEV_SAMP, AggFn.VAR_SAMP, AggFn.STDDEV_POP, AggFn.VAR_POP)
    )
    rows = run_one(dq_engine, Aggregate(one, (), measures), {"g": source})
    assert rows == [{"stddev_samp": None, "var_samp": None, "stddev_pop": 0.0, "var_pop": 0.0}]


def test_grouped_with_null_key(dq_engine, source):
    rel = Aggregate(
        read(dq_engine, source), (Named(k, "key"),), (Named(agg(AggFn.COUNT_ALL), "n"), Named(agg(AggFn.SUM, v), "s"))
    )
    rows = run_one(dq_engine, rel, {"g": source})
    assert multiset(rows) == multiset(
        [{"key": "a", "n": 2, "s": 2}, {"key": "b", "n": 1, "s": 5}, {"key": None, "n": 2, "s": 3}]
    )


def test_grouped_filtered_measures(dq_engine, source):
    """A group no row of which passes the filter counts 0 and sums NULL; a NULL condition never passes."""
    v_over_one = Call(Fn.GT, (v, Literal(1, INT)), BOOL)  # NULL where v is NULL
    rel = Aggregate(
        read(dq_engine, source),
        (Named(k, "key"),),
        (
            Named(agg(AggFn.COUNT_ALL, filter=v_over_one), "n"),
            Named(agg(AggFn.SUM, v, filter=v_over_one), "s"),
            Named(agg(AggFn.COUNT, v, distinct=True, filter=v_over_one), "distinct_v"),
            Named(agg(AggFn.MAX, d, DBL, filter=v_over_one), "max_d"),
        ),
    )
    rows = run_one(dq_engine, rel, {"g": source})
    # a: v 1, 1 (none over one); b: v 5 (d 2.0); NULL key: v NULL, 3 (d NULL, 4.0)
    assert multiset(rows) == multiset(
        [
            {"key": "a", "n": 0, "s": None, "distinct_v": 0, "max_d": None},
            {"key": "b", "n": 1, "s": 5, "distinct_v": 1, "max_d": 2.0},
            {"key": None, "n": 1, "s": 3, "distinct_v": 1, "max_d": 4.0},
        ]
    )
    assert all(type(row["n"]) is int for row in rows)


def test_grouped_empty_input_gives_no_rows(dq_engine, source):
    empty = Filter(read(dq_engine, source), Literal(False, BOOL))
    rel = Aggregate(empty, (Named(k, "key"),), (Named(agg(AggFn.COUNT_ALL), "n"),))
    assert run_one(dq_engine, rel, {"g": source}) == []


def test_wide_aggregate(dq_engine, source):
    """More measures than Spark's code-generation field limit still compute, in one aggregate."""
    measures = tuple(
        Named(agg(AggFn.COUNT_ALL, filter=Call(Fn.GE, (v, Literal(n % 6, INT)), BOOL)), f"m{n}") for n in range(150)
    )
    rows = run_one(dq_engine, Aggregate(read(dq_engine, source), (), measures), {"g": source})
    expected = {0: 4, 1: 4, 2: 2, 3: 2, 4: 1, 5: 1}
    assert rows == [{f"m{n}": expected[n % 6] for n in range(150)}]
