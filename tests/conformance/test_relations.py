"""Every relation node, views and query limits on both engines, checked against hand-derived rows."""

from __future__ import annotations

import math

import pyarrow as pa

from gryph.compiler.plan import (
    Aggregate,
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
from gryph.compiler.plan import data_types as G
from tests.support.plan_helpers import BOOL, DBL, INT, STR, frame_source, multiset, read, run_one

NAN = math.nan
LEFT = frame_source("l", pa.table({"id": pa.array([1, 2, 2, None], pa.int64()), "lv": pa.array(["a", "b", "c", "d"])}))
RIGHT = frame_source("r", pa.table({"rid": pa.array([2, 3, None], pa.int64()), "rv": pa.array(["x", "y", "z"])}))
SOURCES = {"l": LEFT, "r": RIGHT}
idf, rid = Field("id", INT), Field("rid", INT)


def join(engine, kind, on):
    rel = Join(kind, read(engine, LEFT), read(engine, RIGHT), on)
    return run_one(engine, rel, SOURCES)


def eq(a, b, fn=Fn.EQ):
    return Call(fn, (a, b), BOOL)


def test_inner_join(dq_engine):
    rows = join(dq_engine, JoinKind.INNER, eq(idf, rid))
    assert multiset(rows) == multiset(
        [{"id": 2, "lv": "b", "rid": 2, "rv": "x"}, {"id": 2, "lv": "c", "rid": 2, "rv": "x"}]
    )


def test_left_join(dq_engine):
    rows = join(dq_engine, JoinKind.LEFT, eq(idf, rid))
    assert multiset(rows) == multiset(
        [
            {"id": 1, "lv": "a", "rid": None, "rv": None},
            {"id": 2, "lv": "b", "rid": 2, "rv": "x"},
            {"id": 2, "lv": "c", "rid": 2, "rv": "x"},
            {"id": None, "lv": "d", "rid": None, "rv": None},
        ]
    )


def test_anti_and_semi_join(dq_engine):
    anti = join(dq_engine, JoinKind.ANTI, eq(idf, rid))
    semi = join(dq_engine, JoinKind.SEMI, eq(idf, rid))
    assert multiset(anti) == multiset([{"id": 1, "lv": "a"}, {"id": None, "lv": "d"}])
    assert multiset(semi) == multiset([{"id": 2, "lv": "b"}, {"id": 2, "lv": "c"}])


def test_null_safe_join_matches_nulls(dq_engine):
    rows = join(dq_engine, JoinKind.SEMI, eq(idf, rid, Fn.EQ_NULL_SAFE))
    assert multiset(rows) == multiset([{"id": 2, "lv": "b"}, {"id": 2, "lv": "c"}, {"id": None, "lv": "d"}])


def test_cross_join(dq_engine):
    assert len(join(dq_engine, JoinKind.CROSS, None)) == 12


def test_filter_drops_null_conditions(dq_engine):
    rel = Filter(read(dq_engine, LEFT), eq(idf, Literal(2, INT)))
    assert multiset(run_one(dq_engine, rel, SOURCES)) == multiset([{"id": 2, "lv": "b"}, {"id": 2, "lv": "c"}])


def test_read_selects_checked_columns_in_order(dq_engine):
    rel = Read("l", G.schema(("lv", STR)))
    assert run_one(dq_engine, Sort(rel, (SortKey(Field("lv", STR)),)), SOURCES) == [
        {"lv": "a"},
        {"lv": "b"},
        {"lv": "c"},
        {"lv": "d"},
    ]


def test_distinct_treats_nulls_as_equal(dq_engine):
    spec = frame_source(
        "dup",
        pa.table({"a": pa.array([1, 1, None, None, 2], pa.int64()), "b": pa.array([None, None, None, None, "x"])}),
    )
    rows = run_one(dq_engine, Distinct(read(dq_engine, spec)), {"dup": spec})
    assert multiset(rows) == multiset([{"a": 1, "b": None}, {"a": None, "b": None}, {"a": 2, "b": "x"}])


SORTED = frame_source("s", pa.table({"x": pa.array([3.0, None, 1.0, NAN], pa.float64())}))


def sorted_values(engine, ascending, nulls_first):
    rel = Sort(read(engine, SORTED), (SortKey(Field("x", DBL), ascending, nulls_first),))
    return [repr(row["x"]) for row in run_one(engine, rel, {"s": SORTED})]


def test_sort_null_placement(dq_engine):
    # NaN sorts above every number on both engines; NULL goes where the key says.
    assert sorted_values(dq_engine, True, False) == ["1.0", "3.0", "nan", "None"]
    assert sorted_values(dq_engine, True, True) == ["None", "1.0", "3.0", "nan"]
    assert sorted_values(dq_engine, False, True) == ["None", "nan", "3.0", "1.0"]
    assert sorted_values(dq_engine, False, False) == ["nan", "3.0", "1.0", "None"]


def test_limit(dq_engine):
    ordered = Sort(read(dq_engine, LEFT), (SortKey(Field("lv", STR), ascending=False),))
    assert run_one(dq_engine, Limit(ordered, 2), SOURCES) == [{"id": None, "lv": "d"}, {"id": 2, "lv": "c"}]
    assert run_one(dq_engine, Limit(ordered, 0), SOURCES) == []


def test_query_limit(dq_engine):
    plan = Plan((), (Query("q", read(dq_engine, LEFT), limit=1),))
    assert len(dq_engine.run(plan, SOURCES)["q"]) == 1


WIN = frame_source(
    "w",
    pa.table(
        {
            "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
            "k": pa.array(["a", "a", "a", "b", None]),
            "v": pa.array([3, 1, 1, 2, 5], pa.int64()),
        }
    ),
)


def test_window(dq_engine):
    k, v, i = Field("k", STR), Field("v", INT), Field("id", INT)
    rel = Window(
        read(dq_engine, WIN),
        (
            Named(WindowCall(WindowFn.ROW_NUMBER, (k,), (SortKey(v), SortKey(i))), "rn"),
            Named(WindowCall(WindowFn.COUNT_ALL, (k,)), "size"),
            Named(WindowCall(WindowFn.COUNT_ALL, (k,), (SortKey(v),)), "running"),
            Named(WindowCall(WindowFn.ROW_NUMBER), "any_rn"),
        ),
    )
    rows = sorted(run_one(dq_engine, rel, {"w": WIN}), key=lambda r: r["id"])
    assert [(r["rn"], r["size"], r["running"]) for r in rows] == [(3, 3, 3), (1, 3, 2), (2, 3, 2), (1, 1, 1), (1, 1, 1)]
    assert sorted(r["any_rn"] for r in rows) == [1, 2, 3, 4, 5]
    assert list(rows[0]) == ["id", "k", "v", "rn", "size", "running", "any_rn"]


def test_views_and_sql(dq_engine):
    big = View("big", Filter(read(dq_engine, WIN), eq(Field("v", INT), Literal(2, INT), Fn.GE)))
    plan = Plan(
        (big,),
        (
            Query("via_read", Aggregate(Read("big", dq_engine.schema_of(WIN)), (), (Named(count_all(), "n"),))),
            Query("via_sql", Sql("SELECT count(*) AS n FROM big WHERE k IS NOT NULL", ("big",))),
            Query("source_sql", Sql("SELECT max(v) AS top FROM w", ("w",))),
        ),
    )
    out = dq_engine.run(plan, {"w": WIN})
    assert out == {"via_read": [{"n": 3}], "via_sql": [{"n": 2}], "source_sql": [{"top": 5}]}
    # Views and sources are temporary: a run leaves nothing behind in the session.
    assert not {"big", "w"} & session_tables(dq_engine)


def session_tables(engine) -> set[str]:
    """The tables and views the engine's session can name."""
    if engine.name == "spark":
        return {t.name for t in engine.spark.catalog.listTables()}
    return {
        name for (name,) in engine.connection.execute("SELECT table_name FROM information_schema.tables").fetchall()
    }


def test_project_computes_per_row(dq_engine):
    rel = Project(read(dq_engine, LEFT), (Named(Call(Fn.CONCAT, (Field("lv", STR), Field("lv", STR)), STR), "twice"),))
    assert multiset(run_one(dq_engine, rel, SOURCES)) == multiset([{"twice": t} for t in ("aa", "bb", "cc", "dd")])
