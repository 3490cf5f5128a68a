"""A run's queries go to DuckDB as one statement; ordered ones alone; a failure names its query."""

from __future__ import annotations

import datetime as dt
import math
import threading
from decimal import Decimal

import pyarrow as pa
import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.plan import (
    Aggregate,
    Call,
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
    RLike,
    Sort,
    SortKey,
    count_all,
    grouped_counts,
    key_histogram,
)
from gryph.compiler.plan.histograms import COUNT, VALUES
from tests.support.plan_helpers import BOOL, DBL, INT, STR, Recorder, frame_source, multiset, read

ROWS = pa.table(
    {
        "a": pa.array([1, 2, 3, None], pa.int64()),
        "s": pa.array(["x", None, "é", "x"], pa.string()),
        "d": pa.array([1.0, math.nan, None, 2.0], pa.float64()),
        # names a union of packed rows could trip over
        "__row": pa.array([10, 20, 30, 40], pa.int64()),
        "__s0": pa.array(["p", "q", "r", "s"], pa.string()),
        "名 前": pa.array(["一", "二", None, "四"], pa.string()),
    }
)
a, s, d = Field("a", INT), Field("s", STR), Field("d", DBL)


@pytest.fixture
def engine(recording_engine):
    """The engine, with every statement it gives DuckDB written down."""
    return recording_engine


@pytest.fixture
def source():
    return frame_source("t", ROWS)


def _data_statements_of(engine, source: str) -> list[str]:
    """The statements that read ``source``'s rows (not settings, plans or registrations)."""
    return [
        sql
        for sql in engine.connection.statements
        if sql.lstrip().upper().startswith(("SELECT", "WITH")) and f'"{source}"' in sql
    ]


def _data_statements(engine) -> list[str]:
    return _data_statements_of(engine, "t")


def test_queries_of_different_shapes_come_back_apart_from_one_statement(engine, source):
    t = read(engine, source)
    over_one = Call(Fn.GT, (a, Literal(1, INT)), BOOL)
    plan = Plan(
        (),
        (
            Query("n", Aggregate(t, (), (Named(count_all(), "n"),))),
            Query("pairs", Project(Filter(t, over_one), (Named(a, "a"), Named(s, "s")))),
            Query(
                "odd",
                Project(t, tuple(Named(Field(n, INT if n == "__row" else STR), n) for n in ("__row", "__s0", "名 前"))),
            ),
            Query("none", Filter(t, Call(Fn.GT, (a, Literal(3, INT)), BOOL))),
            Query("hist", key_histogram(grouped_counts(t, (Named(s, "__key0"),)))),
            Query("nan", Project(t, (Named(d, "d"),))),
            Query("sample", Filter(t, over_one), limit=1),
        ),
    )
    rows = engine.run(plan, {"t": source})
    assert rows["n"] == [{"n": 4}] and rows["none"] == []
    assert multiset(rows["pairs"]) == multiset([{"a": 2, "s": None}, {"a": 3, "s": "é"}])
    assert multiset(rows["odd"]) == multiset(
        [
            {"__row": 10, "__s0": "p", "名 前": "一"},
            {"__row": 20, "__s0": "q", "名 前": "二"},
            {"__row": 30, "__s0": "r", "名 前": None},
            {"__row": 40, "__s0": "s", "名 前": "四"},
        ]
    )
    assert [list(r) for r in rows["odd"]] == [["__row", "__s0", "名 前"]] * 4  # column order kept
    # s is x twice, NULL once, é once: two values once, one value twice
    assert multiset(rows["hist"]) == multiset([{COUNT: 1, VALUES: 2}, {COUNT: 2, VALUES: 1}])
    values = sorted(rows["nan"], key=lambda r: (r["d"] is None, repr(r["d"])))
    assert [r["d"] for r in values][:2] == [1.0, 2.0] and math.isnan(values[2]["d"]) and values[3]["d"] is None
    assert len(rows["sample"]) == 1 and rows["sample"][0]["a"] in (2, 3)
    statements = _data_statements(engine)
    assert len(statements) == 1 and "UNION ALL BY NAME" in statements[0]


def test_ordered_rows_keep_their_order(engine, source):
    t = read(engine, source)
    by_row_desc = Sort(t, (SortKey(Field("__row", INT), ascending=False),))
    plan = Plan(
        (),
        (
            Query("n", Aggregate(t, (), (Named(count_all(), "n"),))),
            Query("m", Aggregate(t, (), (Named(count_all(Call(Fn.GT, (a, Literal(1, INT)), BOOL)), "m"),))),
            Query("sorted", Project(by_row_desc, (Named(Field("__row", INT), "r"),))),
            Query("top", Limit(by_row_desc, 2)),
        ),
    )
    rows = engine.run(plan, {"t": source})
    assert rows["n"] == [{"n": 4}] and rows["m"] == [{"m": 2}]
    assert [r["r"] for r in rows["sorted"]] == [40, 30, 20, 10]
    assert [r["__row"] for r in rows["top"]] == [40, 30]
    # the two aggregates share a statement; each ordered query runs alone
    statements = _data_statements(engine)
    assert len(statements) == 3 and sum("UNION ALL BY NAME" in sql for sql in statements) == 1


def test_a_failure_at_run_time_names_its_query(engine):
    patterns = frame_source("t", pa.table({"v": ["a", "b"], "p": ["a", "("]}))  # "(" is no regex
    t = read(engine, patterns)
    plan = Plan(
        (),
        (
            Query("fine", Aggregate(t, (), (Named(count_all(), "n"),))),
            Query("broken", Project(t, (Named(RLike(Field("v", STR), Field("p", STR)), "m"),))),
        ),
    )
    with pytest.raises(EngineError) as info:
        engine.run(plan, {"t": patterns})
    assert info.value.code == "QUERY_FAILED" and "'broken'" in info.value.message
    assert "'fine'" not in info.value.message


def test_more_queries_than_one_statement_holds(engine, source):
    """70 queries: the first 64 in one statement, the other 6 in a second; each gets its own rows."""
    t = read(engine, source)

    def at_least(n):
        return Aggregate(t, (), (Named(count_all(Call(Fn.GE, (Field("__row", INT), Literal(n, INT)), BOOL)), "n"),))

    plan = Plan((), tuple(Query(f"q{n}", at_least(n)) for n in range(70)))
    rows = engine.run(plan, {"t": source})
    # __row is 10, 20, 30 and 40: how many are at least n
    assert {name: r[0]["n"] for name, r in rows.items()} == {
        f"q{n}": sum(x >= n for x in (10, 20, 30, 40)) for n in range(70)
    }
    statements = _data_statements(engine)
    assert [sql.count("UNION ALL BY NAME") for sql in statements] == [63, 5]


def test_values_of_every_kind_come_back_from_the_union_as_from_a_query_alone(engine):
    kinds = frame_source(
        "k",
        pa.table(
            {
                "m": pa.array([[("a", 1)], None], pa.map_(pa.string(), pa.int64())),
                "l": pa.array([[1, None, 3], []], pa.list_(pa.int64())),
                "st": pa.array([{"x": 1, "y": "é"}, None], pa.struct([("x", pa.int64()), ("y", pa.string())])),
                "dec": pa.array([Decimal("1.25"), None], pa.decimal128(10, 2)),
                "d": pa.array([dt.date(2024, 1, 2), None], pa.date32()),
                "ts": pa.array([dt.datetime(2024, 1, 2, 3, 4, 5, 123456), None], pa.timestamp("us")),
                "x": pa.array([math.nan, -0.0], pa.float64()),
            }
        ),
    )
    everything = Query(
        "all",
        Project(
            read(engine, kinds),
            tuple(
                Named(Field(name, dtype), name)
                for name, dtype in ((c.name, c.dtype) for c in engine.schema_of(kinds).columns)
            ),
        ),
    )
    count = Query("n", Aggregate(read(engine, kinds), (), (Named(count_all(), "n"),)))
    together = engine.run(Plan((), (everything, count)), {"k": kinds})
    alone = engine.run(Plan((), (everything,)), {"k": kinds})
    assert len(_data_statements_of(engine, "k")) == 2  # the union, then the query alone
    assert together["n"] == [{"n": 2}]
    assert repr(multiset(together["all"])) == repr(multiset(alone["all"]))


class Cancelling(Recorder):
    """Cancels every statement over the source ``t`` that runs longer than half a second."""

    def execute(self, sql, *args):
        timer = threading.Timer(0.5, self.con.interrupt) if '"t"' in sql else None
        if timer:
            timer.start()
        try:
            return super().execute(sql, *args)
        finally:
            if timer:
                timer.cancel()


def test_a_cancelled_statement_is_not_run_again_query_by_query(engine):
    engine._con = Cancelling(engine.connection.con)
    big = frame_source("t", pa.table({"i": pa.array(range(200_000), pa.int64())}))
    t = read(engine, big)
    other = Project(t, (Named(Field("i", INT), "j"),))
    pairs = Join(JoinKind.CROSS, t, other, None)  # 4 * 10^10 rows: runs until cancelled
    plan = Plan(
        (),
        (
            Query("pairs", Aggregate(pairs, (), (Named(count_all(), "n"),))),
            Query("rows", Aggregate(t, (), (Named(count_all(), "n"),))),
        ),
    )
    with pytest.raises(EngineError) as info:
        engine.run(plan, {"t": big})
    assert info.value.code == "QUERY_FAILED" and "'pairs'" in info.value.message
    assert "interrupt" in info.value.message.lower()
    assert len(_data_statements(engine)) == 1  # the union only: no query ran again alone


def test_a_grouping_two_queries_hold_is_computed_once(engine, source):
    """A duplicate count's histogram and its record sample: one grouping, read twice."""
    t = read(engine, source)
    counted = grouped_counts(t, (Named(s, "__key0"),))
    count = Field(COUNT, INT)
    duplicated = Filter(counted, Call(Fn.GT, (count, Literal(1, INT)), BOOL))
    plan = Plan((), (Query("hist", key_histogram(counted)), Query("dups", Limit(duplicated, 20))))
    rows = engine.run(plan, {"t": source})
    # s is x twice, NULL once, é once
    assert multiset(rows["hist"]) == multiset([{COUNT: 1, VALUES: 2}, {COUNT: 2, VALUES: 1}])
    assert rows["dups"] == [{"__key0": "x", COUNT: 2}]
    (statement,) = _data_statements(engine)
    assert statement.count("AS MATERIALIZED") == 1 and statement.count("GROUP BY") == 2  # the histogram's own


def test_a_shared_join_does_not_take_a_sources_name(engine):
    """The shared relation's name is free of the names of the sources the statement reads."""
    taken = frame_source("__gryph_shared0", pa.table({"k": pa.array([1, 1, 2], pa.int64())}))
    other = frame_source("u", pa.table({"k": pa.array([2], pa.int64())}))
    left, right = read(engine, taken), read(engine, other)
    k = Field("k", INT)
    missing = Join(
        JoinKind.ANTI,
        left,
        Project(right, (Named(k, "__k"),)),
        Call(Fn.EQ_NULL_SAFE, (k, Field("__k", INT)), BOOL),
    )
    plan = Plan(
        (),
        (Query("n", Aggregate(missing, (), (Named(count_all(), "n"),))), Query("sample", Limit(missing, 20))),
    )
    rows = engine.run(plan, {"__gryph_shared0": taken, "u": other})
    assert rows["n"] == [{"n": 2}] and rows["sample"] == [{"k": 1}, {"k": 1}]
    (statement,) = _data_statements_of(engine, "u")
    assert statement.count("AS MATERIALIZED") == 1
