"""Column pruning on the plan: each Read keeps exactly the columns the relations above it use."""

from __future__ import annotations

from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Distinct,
    Field,
    Filter,
    Fn,
    Join,
    JoinKind,
    Named,
    Project,
    Read,
    Sort,
    SortKey,
    Sql,
    Window,
    WindowCall,
    WindowFn,
    count_all,
)
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, schema
from gryph.compiler.plan.pruning import columns_read, prune_columns
from gryph.compiler.plan.scalars import call

T = schema(("a", INTEGER), ("b", INTEGER), ("c", INTEGER), ("d", INTEGER))
U = schema(("k", INTEGER), ("x", INTEGER), ("y", INTEGER))
a, b, c, d = (Field(n, INTEGER) for n in "abcd")


def _read_columns(rel) -> dict[str, tuple[str, ...]]:
    out = {}
    stack = [rel]
    while stack:
        node = stack.pop()
        if isinstance(node, Read):
            out[node.source] = node.source_schema.names
        stack += [getattr(node, f) for f in ("input", "left", "right") if hasattr(node, f)]
    return out


def test_a_filter_keeps_the_columns_of_its_condition():
    # the project computes a, b and c + 1; only a is needed above the filter on b
    project = Project(
        Read("t", T), (Named(a, "a"), Named(b, "b"), Named(call(Fn.ADD, c, Field("a", INTEGER), dtype=INTEGER), "e"))
    )
    rel = Project(Filter(project, call(Fn.GT, b, a)), (Named(a, "a"),))
    pruned = prune_columns(rel)
    assert _read_columns(pruned) == {"t": ("a", "b")}  # c only fed e, which nothing reads
    assert [n.name for n in pruned.input.input.columns] == ["a", "b"]


def test_an_aggregate_keeps_its_keys_and_arguments():
    rel = Aggregate(
        Read("t", T),
        (Named(d, "d"),),
        (Named(AggregateCall(AggFn.SUM, (b,), INTEGER), "s"), Named(count_all(call(Fn.GT, c, a)), "n")),
    )
    assert _read_columns(prune_columns(rel)) == {"t": ("a", "b", "c", "d")}
    only_sum = Aggregate(Read("t", T), (), (Named(AggregateCall(AggFn.SUM, (b,), INTEGER), "s"),))
    assert _read_columns(prune_columns(only_sum)) == {"t": ("b",)}


def test_a_count_of_rows_keeps_one_column():
    rel = Aggregate(Read("t", T), (), (Named(count_all(), "n"),))
    assert _read_columns(prune_columns(rel)) == {"t": ("a",)}


def test_join_sides_keep_the_condition_and_what_is_used_above():
    right = Project(Read("u", U), (Named(Field("k", INTEGER), "tk"), Named(Field("x", INTEGER), "tx")))
    on = call(Fn.AND, call(Fn.EQ, a, Field("tk", INTEGER)), call(Fn.EQ, b, Field("tx", INTEGER)), dtype=BOOLEAN)
    anti = Join(JoinKind.ANTI, Read("t", T), right, on)
    rel = Aggregate(anti, (), (Named(AggregateCall(AggFn.MAX, (c,), INTEGER), "m"),))
    assert _read_columns(prune_columns(rel)) == {"t": ("a", "b", "c"), "u": ("k", "x")}
    # a left join whose every column is returned keeps both sides whole
    left = Join(JoinKind.LEFT, Read("t", T), Read("u", U), call(Fn.EQ, a, Field("k", INTEGER)))
    assert _read_columns(prune_columns(left)) == {"t": T.names, "u": U.names}


def test_distinct_needs_every_column_and_sort_its_keys():
    distinct = Project(Distinct(Read("t", T)), (Named(a, "a"),))
    assert _read_columns(prune_columns(distinct)) == {"t": T.names}  # b, c, d decide what is distinct
    ordered = Project(Sort(Read("t", T), (SortKey(d),)), (Named(a, "a"),))
    assert _read_columns(prune_columns(ordered)) == {"t": ("a", "d")}


def test_a_window_keeps_its_partition_and_order_columns():
    window = Window(Read("t", T), (Named(WindowCall(WindowFn.ROW_NUMBER, (b,), (SortKey(c),)), "rn"),))
    rel = Project(window, (Named(a, "a"), Named(Field("rn", INTEGER), "rn")))
    assert _read_columns(prune_columns(rel)) == {"t": ("a", "b", "c")}


def test_columns_read_joins_the_needs_of_every_relation():
    first = prune_columns(Aggregate(Read("t", T), (), (Named(AggregateCall(AggFn.MIN, (a,), INTEGER), "m"),)))
    second = prune_columns(Aggregate(Read("t", T), (Named(c, "c"),), (Named(count_all(), "n"),)))
    assert columns_read([first, second]) == {"t": frozenset({"a", "c"})}
    # SQL text may name any column of the tables it reads: those are read whole
    sql = Sql("select * from t", ("t",), output_schema=T)
    assert columns_read([first, sql, second]) == {"t": None}
