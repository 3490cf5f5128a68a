"""Every relation on both engines: filters, projections, aggregates, joins, sorting, windows, views, SQL."""

from __future__ import annotations

import math
from collections import Counter

import pyarrow as pa
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Call,
    Distinct,
    Field,
    Filter,
    Fn,
    Join,
    JoinKind,
    Limit,
    Literal,
    Named,
    Plan,
    Project,
    Query,
    Read,
    Sort,
    SortKey,
    Sql,
    View,
    Window,
    WindowCall,
    WindowFn,
    count_all,
)
from gryph.compiler.plan.data_types import BOOLEAN, DOUBLE, INTEGER, STRING, schema

NAN = float("nan")
I, D, S, B = INTEGER, DOUBLE, STRING, BOOLEAN


def agg(fn, arg=None, dtype=I, distinct=False, filter=None):
    return AggregateCall(fn, () if arg is None else (arg,), dtype, distinct, filter)


def gt(name, value):
    return Call(Fn.GT, (Field(name, I), Literal(value, I)), B)


def multiset(rows):
    return Counter(tuple(sorted(row.items())) for row in rows)


# --- filter and project ------------------------------------------------------------------------


def test_filter_keeps_rows_whose_condition_is_true(bench):
    read = bench.table("s", {"x": [1, 5, None, 7]})
    assert bench.rows(Filter(read, gt("x", 3))) == [{"x": 5}, {"x": 7}]


def test_filter_to_nothing_and_over_an_empty_table(bench):
    read = bench.table("s", {"x": pa.array([], pa.int64())})
    assert bench.rows(Filter(read, gt("x", 3))) == []
    assert bench.rows(Filter(bench.table("t", {"x": [1]}), Literal(False, B))) == []


ODD = ["a b", 'q"uote', "back`tick", "dot.ted", "select", "ñame", "'single'"]


def test_odd_column_names_everywhere(bench):
    read = bench.table("odd source", {name: [i, i + 10] for i, name in enumerate(ODD)})
    project = Project(read, tuple(Named(Field(n, I), n + " out") for n in ODD))
    assert bench.rows(project) == [
        {n + " out": i for i, n in enumerate(ODD)},
        {n + " out": i + 10 for i, n in enumerate(ODD)},
    ]
    filtered = Filter(read, gt("select", 5))
    assert [r['q"uote'] for r in bench.rows(filtered)] == [11]
    grouped = Aggregate(
        read, (Named(Field("dot.ted", I), "dot.ted"),), (Named(agg(AggFn.SUM, Field("back`tick", I)), 'su"m'),)
    )
    assert multiset(bench.rows(grouped)) == multiset([{"dot.ted": 3, 'su"m': 2}, {"dot.ted": 13, 'su"m': 12}])


def test_project_keeps_column_order(bench):
    read = bench.table("s", {"a": [1], "b": [2]})
    project = Project(read, (Named(Field("b", I), "z"), Named(Field("a", I), "a"), Named(Literal("k", S), "c")))
    rows = bench.rows(project)
    assert rows == [{"z": 2, "a": 1, "c": "k"}] and list(rows[0]) == ["z", "a", "c"]


def test_read_follows_the_plan_column_order(bench):
    bench.table("s", {"a": [1], "b": [2]})
    read = Read("s", schema(("b", I), ("a", I)))
    assert list(bench.rows(read)[0]) == ["b", "a"]


# --- aggregates --------------------------------------------------------------------------------

NUMBERS = {"x": [1, 2, 2, None, 4], "d": [1.0, NAN, None, 2.0, 0.5], "g": ["a", "a", "b", None, None]}


def test_every_aggregate_over_integers(bench):
    read = bench.table("s", NUMBERS)
    x = Field("x", I)
    measures = {
        "rows": agg(AggFn.COUNT_ALL),
        "count": agg(AggFn.COUNT, x),
        "count_distinct": agg(AggFn.COUNT, x, distinct=True),
        "sum": agg(AggFn.SUM, x),
        "sum_distinct": agg(AggFn.SUM, x, distinct=True),
        "avg": agg(AggFn.AVG, x, D),
        "min": agg(AggFn.MIN, x),
        "max": agg(AggFn.MAX, x),
        "stddev_samp": agg(AggFn.STDDEV_SAMP, x, D),
        "stddev_pop": agg(AggFn.STDDEV_POP, x, D),
        "var_samp": agg(AggFn.VAR_SAMP, x, D),
        "var_pop": agg(AggFn.VAR_POP, x, D),
    }
    (row,) = bench.rows(Aggregate(read, (), tuple(Named(e, n) for n, e in measures.items())))
    # values 1, 2, 2, 4: mean 2.25, squared deviations 1.5625 + 0.0625 + 0.0625 + 3.0625 = 4.75
    assert {k: row[k] for k in ("rows", "count", "count_distinct", "sum", "sum_distinct", "min", "max")} == {
        "rows": 5,
        "count": 4,
        "count_distinct": 3,
        "sum": 9,
        "sum_distinct": 7,
        "min": 1,
        "max": 4,
    }
    assert row["avg"] == 2.25 and isinstance(row["avg"], float)
    assert row["var_samp"] == pytest.approx(4.75 / 3, rel=1e-12)
    assert row["var_pop"] == pytest.approx(4.75 / 4, rel=1e-12)
    assert row["stddev_samp"] == pytest.approx(math.sqrt(4.75 / 3), rel=1e-12)
    assert row["stddev_pop"] == pytest.approx(math.sqrt(4.75 / 4), rel=1e-12)


def test_count_counts_nan_and_max_is_nan(bench):
    read = bench.table("s", NUMBERS)
    d = Field("d", D)
    measures = (
        Named(agg(AggFn.COUNT, d), "count"),
        Named(agg(AggFn.MAX, d, D), "max"),
        Named(agg(AggFn.MIN, d, D), "min"),
    )
    (row,) = bench.rows(Aggregate(read, (), measures))
    assert row["count"] == 4 and math.isnan(row["max"]) and row["min"] == 0.5


def test_filtered_aggregates_share_one_scan(bench):
    read = bench.table("s", NUMBERS)
    x = Field("x", I)
    measures = (
        Named(count_all(gt("x", 1)), "big"),
        Named(agg(AggFn.SUM, x, filter=gt("x", 1)), "big_sum"),
        Named(agg(AggFn.COUNT, x, distinct=True, filter=gt("x", 1)), "big_distinct"),
        Named(count_all(Literal(None, B)), "none"),
    )
    assert bench.rows(Aggregate(read, (), measures)) == [{"big": 3, "big_sum": 8, "big_distinct": 2, "none": 0}]


def test_one_row_spread_is_null_for_samples_and_zero_for_populations(bench):
    read = bench.table("s", {"x": [3.0]})
    x = Field("x", D)
    measures = tuple(
        Named(agg(fn, x, D), fn.value) for fn in (AggFn.STDDEV_SAMP, AggFn.VAR_SAMP, AggFn.STDDEV_POP, AggFn.VAR_POP)
    )
    assert bench.rows(Aggregate(read, (), measures)) == [
        {"stddev_samp": None, "var_samp": None, "stddev_pop": 0.0, "var_pop": 0.0}
    ]


def test_aggregate_without_keys_over_empty_input_gives_one_row(bench):
    read = bench.table("s", {"x": pa.array([], pa.int64())})
    x = Field("x", I)
    measures = (
        Named(count_all(), "rows"),
        Named(agg(AggFn.COUNT, x), "count"),
        Named(agg(AggFn.SUM, x), "sum"),
        Named(agg(AggFn.AVG, x, D), "avg"),
        Named(agg(AggFn.MIN, x), "min"),
    )
    assert bench.rows(Aggregate(read, (), measures)) == [{"rows": 0, "count": 0, "sum": None, "avg": None, "min": None}]
    grouped = Aggregate(read, (Named(x, "x"),), (Named(count_all(), "rows"),))
    assert bench.rows(grouped) == []


def test_grouping_puts_nulls_in_one_group(bench):
    read = bench.table("s", NUMBERS)
    grouped = Aggregate(
        read, (Named(Field("g", S), "g"),), (Named(count_all(), "rows"), Named(agg(AggFn.SUM, Field("x", I)), "sum"))
    )
    assert multiset(bench.rows(grouped)) == multiset(
        [{"g": "a", "rows": 2, "sum": 3}, {"g": "b", "rows": 1, "sum": 2}, {"g": None, "rows": 2, "sum": 4}]
    )


def test_grouping_by_an_expression(bench):
    read = bench.table("s", {"x": [1, 2, 3, 4, 5]})
    parity = Call(Fn.MODULO, (Field("x", I), Literal(2, I)), I)
    grouped = Aggregate(read, (Named(parity, "parity"),), (Named(count_all(), "n"),))
    assert multiset(bench.rows(grouped)) == multiset([{"parity": 1, "n": 3}, {"parity": 0, "n": 2}])


# --- joins -------------------------------------------------------------------------------------


@pytest.fixture
def sides(bench):
    left = bench.table("l", {"k": [1, 2, None, 3], "lv": ["a", "b", "c", "d"]})
    right = bench.table("r", {"rk": [1, 1, None, 4], "rv": ["x", "y", "z", "w"]})
    return left, right


KEYS_EQUAL = Call(Fn.EQ, (Field("k", I), Field("rk", I)), B)


def test_inner_join(bench, sides):
    rows = bench.rows(Join(JoinKind.INNER, *sides, KEYS_EQUAL))
    assert multiset(rows) == multiset(
        [{"k": 1, "lv": "a", "rk": 1, "rv": "x"}, {"k": 1, "lv": "a", "rk": 1, "rv": "y"}]
    )


def test_left_join_keeps_unmatched_left_rows(bench, sides):
    rows = bench.rows(Join(JoinKind.LEFT, *sides, KEYS_EQUAL))
    nothing = {"rk": None, "rv": None}
    assert multiset(rows) == multiset(
        [
            {"k": 1, "lv": "a", "rk": 1, "rv": "x"},
            {"k": 1, "lv": "a", "rk": 1, "rv": "y"},
            {"k": 2, "lv": "b", **nothing},
            {"k": None, "lv": "c", **nothing},
            {"k": 3, "lv": "d", **nothing},
        ]
    )
    assert list(rows[0]) == ["k", "lv", "rk", "rv"]


def test_semi_join_keeps_each_matching_left_row_once(bench, sides):
    assert bench.rows(Join(JoinKind.SEMI, *sides, KEYS_EQUAL)) == [{"k": 1, "lv": "a"}]


def test_anti_join_keeps_left_rows_without_a_match(bench, sides):
    rows = bench.rows(Join(JoinKind.ANTI, *sides, KEYS_EQUAL))
    assert multiset(rows) == multiset([{"k": 2, "lv": "b"}, {"k": None, "lv": "c"}, {"k": 3, "lv": "d"}])


def test_null_safe_join_matches_null_keys(bench, sides):
    on = Call(Fn.EQ_NULL_SAFE, (Field("k", I), Field("rk", I)), B)
    rows = bench.rows(Join(JoinKind.ANTI, *sides, on))
    assert multiset(rows) == multiset([{"k": 2, "lv": "b"}, {"k": 3, "lv": "d"}])


def test_cross_join(bench, sides):
    rows = bench.rows(Join(JoinKind.CROSS, *sides, None))
    assert len(rows) == 16 and Counter(r["lv"] + r["rv"] for r in rows)["dw"] == 1


def test_join_with_an_empty_side(bench, sides):
    empty = bench.table("e", {"ek": pa.array([], pa.int64())})
    on = Call(Fn.EQ, (Field("k", I), Field("ek", I)), B)
    assert bench.rows(Join(JoinKind.INNER, sides[0], empty, on)) == []
    assert len(bench.rows(Join(JoinKind.ANTI, sides[0], empty, on))) == 4


# --- distinct, sort, limit ---------------------------------------------------------------------


def test_distinct_treats_nulls_and_nans_as_equal(bench):
    read = bench.table("s", {"x": [1.0, 1.0, None, None, NAN, NAN], "s": ["a", "a", None, None, "é", "é"]})
    rows = bench.rows(Distinct(read))
    assert len(rows) == 3
    assert {r["s"] for r in rows} == {"a", None, "é"}


def test_negative_zero_groups_with_zero_and_shows_as_zero(bench):
    """-0.0 and 0.0 are one value when rows are grouped or made distinct, shown as 0.0 (Spark's way)."""
    read = bench.table("z", {"d": [-0.0, 0.0, NAN, -0.0]})
    grouped = bench.rows(Aggregate(read, (Named(Field("d", D), "d"),), (Named(count_all(), "n"),)))
    distinct = bench.rows(Distinct(read))
    for rows, zeros in ((grouped, [{"d": 0.0, "n": 3}]), (distinct, [{"d": 0.0}])):
        got = [r for r in rows if r["d"] == 0]
        assert got == zeros and math.copysign(1.0, got[0]["d"]) == 1.0, rows
        assert len(rows) == 2  # and one NaN


SORTABLE = {"x": [3.0, None, NAN, -1.0, 2.0]}


@pytest.mark.parametrize(
    "ascending, nulls_first, expected",
    [
        (True, False, [-1.0, 2.0, 3.0, "nan", None]),
        (True, True, [None, -1.0, 2.0, 3.0, "nan"]),
        (False, True, [None, "nan", 3.0, 2.0, -1.0]),
        (False, False, ["nan", 3.0, 2.0, -1.0, None]),
    ],
)
def test_sort_directions_and_null_placement(bench, ascending, nulls_first, expected):
    read = bench.table("s", SORTABLE)
    rows = bench.rows(Sort(read, (SortKey(Field("x", D), ascending, nulls_first),)))
    shown = [r["x"] if r["x"] is None or not math.isnan(r["x"]) else "nan" for r in rows]
    assert shown == expected


def test_sort_by_several_keys(bench):
    read = bench.table("s", {"g": ["b", "a", "b", "a"], "x": [1, 2, 3, 4]})
    keys = (SortKey(Field("g", S)), SortKey(Field("x", I), ascending=False))
    assert [r["x"] for r in bench.rows(Sort(read, keys))] == [4, 2, 3, 1]


def test_limit_of_a_sort_takes_the_first_rows(bench):
    read = bench.table("s", {"x": list(range(100, 0, -1))})
    top = Limit(Sort(read, (SortKey(Field("x", I)),)), 3)
    assert bench.rows(top) == [{"x": 1}, {"x": 2}, {"x": 3}]
    assert bench.rows(Limit(read, 0)) == []
    assert len(bench.rows(Limit(read, 7))) == 7


def test_query_limit_bounds_rows_and_keeps_the_order(bench):
    read = bench.table("s", {"x": [5, 3, 9, 1]})
    sort = Sort(read, (SortKey(Field("x", I), ascending=False),))
    assert bench.rows(sort, limit=2) == [{"x": 9}, {"x": 5}]
    assert len(bench.rows(read, limit=10)) == 4


# --- windows -----------------------------------------------------------------------------------


def test_row_number_and_partition_count(bench):
    read = bench.table("s", {"g": ["a", "b", "a", "a", None], "x": [3, 1, 1, 2, 7]})
    g, x = Field("g", S), Field("x", I)
    window = Window(
        read,
        (
            Named(WindowCall(WindowFn.ROW_NUMBER, (g,), (SortKey(x),)), "rn"),
            Named(WindowCall(WindowFn.COUNT_ALL, (g,)), "n"),
        ),
    )
    rows = bench.rows(window)
    assert multiset(rows) == multiset(
        [
            {"g": "a", "x": 1, "rn": 1, "n": 3},
            {"g": "a", "x": 2, "rn": 2, "n": 3},
            {"g": "a", "x": 3, "rn": 3, "n": 3},
            {"g": "b", "x": 1, "rn": 1, "n": 1},
            {"g": None, "x": 7, "rn": 1, "n": 1},
        ]
    )
    assert list(rows[0]) == ["g", "x", "rn", "n"]


def test_ordered_count_is_a_running_count_with_ties(bench):
    read = bench.table("s", {"x": [1, 2, 2, 3]})
    window = Window(read, (Named(WindowCall(WindowFn.COUNT_ALL, (), (SortKey(Field("x", I)),)), "n"),))
    assert sorted((r["x"], r["n"]) for r in bench.rows(window)) == [(1, 1), (2, 3), (2, 3), (3, 4)]


def test_row_numbers_then_filter_finds_duplicates(bench):
    read = bench.table("s", {"id": [1, 2, 2, 3, 3, 3]})
    rn = WindowCall(WindowFn.ROW_NUMBER, (Field("id", I),), (SortKey(Field("id", I)),))
    dups = Filter(Window(read, (Named(rn, "rn"),)), gt("rn", 1))
    assert sorted(r["id"] for r in bench.rows(dups)) == [2, 3, 3]


# --- views and pass-through SQL ----------------------------------------------------------------


def test_views_register_in_order_and_queries_read_them(bench):
    read = bench.table("s", {"x": [1, 2, 3, 4]})
    big = View("big", Filter(read, gt("x", 1)))
    bigger = View("bigger", Filter(Read("big", read.schema), gt("x", 2)))
    plan = Plan(
        (big, bigger),
        (
            Query("n", Aggregate(Read("bigger", read.schema), (), (Named(count_all(), "n"),))),
            Query("rows", Read("big", read.schema)),
        ),
    )
    result = bench.engine.run(plan, bench.sources)
    assert result == {"n": [{"n": 2}], "rows": [{"x": 2}, {"x": 3}, {"x": 4}]}


def test_spark_sql_reads_sources_and_views(bench):
    bench.table("users", {"a b": [1, 1, 2, None], "select": ["x", "y", "z", "w"]})
    text = "SELECT `a b`, count(*) AS n, max(`select`) AS m FROM users WHERE `a b` IS NOT NULL GROUP BY `a b`"
    sql = Sql(text, ("users",), output_schema=schema(("a b", I), ("n", I), ("m", S)))
    assert multiset(bench.rows(sql)) == multiset([{"a b": 1, "n": 2, "m": "y"}, {"a b": 2, "n": 1, "m": "z"}])
    # a pre.proc step as a view, then a rule over it
    step = View("cleaned", Sql("SELECT `a b` AS k FROM users WHERE `a b` IS NOT NULL", ("users",)))
    rule = Sql("SELECT count(DISTINCT k) AS n FROM cleaned", ("cleaned",))
    assert bench.rows(rule, views=(step,)) == [{"n": 2}]


def test_relations_over_sql_with_a_known_schema(bench):
    bench.table("s", {"x": [1, 5, 7]})
    sql = Sql("SELECT x * 2 AS y FROM s", ("s",), output_schema=schema(("y", I)))
    assert bench.rows(Filter(sql, gt("y", 5))) == [{"y": 10}, {"y": 14}]


def test_duckdb_dialect_passes_through(bench):
    bench.table("s", {"x": [1, 2]})
    assert bench.rows(Sql('SELECT list(x ORDER BY x) AS xs FROM "s"', ("s",), dialect="duckdb")) == [{"xs": [1, 2]}]


# --- the engine around the plan ----------------------------------------------------------------


def test_a_failing_query_is_an_engine_error(bench):
    bench.table("s", {"x": ["a"]})
    with pytest.raises(EngineError) as err:
        bench.rows(Sql("SELECT no_such_column FROM s", ("s",)))
    assert err.value.code == "QUERY_FAILED" and "no_such_column" in err.value.message
