"""Every plan node type through every walker and both executors.

The node types come from the class tree (``SCALAR_TYPES``, ``RELATION_TYPES``), so a new node
without an example here, or one a walker or an engine does not handle, fails this test.
Expected values are worked out by hand from the three rows of ``t`` below.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import NamedTuple

import pyarrow as pa
import pytest

from gryph.compiler.plan import (
    RELATION_TYPES,
    SCALAR_TYPES,
    AggFn,
    Aggregate,
    AggregateCall,
    Between,
    Call,
    Cast,
    Distinct,
    Field,
    Filter,
    Fn,
    IfThen,
    In,
    IsNull,
    Join,
    JoinKind,
    Lambda,
    Like,
    Limit,
    Literal,
    Named,
    Plan,
    Project,
    Query,
    Read,
    Relation,
    RLike,
    Scalar,
    Sort,
    SortKey,
    Sql,
    Variable,
    Window,
    WindowCall,
    WindowFn,
    count_all,
    format_relation,
    substitute,
    walk,
    walk_relations,
)
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, STRING, array, schema
from gryph.compiler.plan.pruning import prune_columns
from gryph.compiler.plan.scalars import field_names
from gryph.compiler.sources.source_specs import SourceSpec

I, S, B = INTEGER, STRING, BOOLEAN
# t: (1, 'ab', [1, 2]), (2, NULL, NULL), (NULL, 'ba', [3]);  u: k in (2, 9)
SOURCES = {
    "t": SourceSpec(
        "t",
        "frame",
        frame=pa.table(
            {
                "i": pa.array([1, 2, None], pa.int64()),
                "s": pa.array(["ab", None, "ba"]),
                "xs": pa.array([[1, 2], None, [3]], pa.list_(pa.int64())),
            }
        ),
    ),
    "u": SourceSpec("u", "frame", frame=pa.table({"k": pa.array([2, 9], pa.int64())})),
}
t = Read("t", schema(("i", I), ("s", S), ("xs", array(I))))
u = Read("u", schema(("k", I)))
i, s, xs = Field("i", I), Field("s", S), Field("xs", array(I))


def lit(value, dtype=I) -> Literal:
    return Literal(value, dtype)


class Example:
    """A node, the relation that runs it, the text the printer shows for it, and the values of
    ``column`` it yields (in order when ``ordered``, else as a multiset)."""

    def __init__(
        self, node, relation: Relation, printed: str, column: str, values: list, ordered: bool = False
    ) -> None:
        self.node, self.relation, self.printed = node, relation, printed
        self.column, self.values, self.ordered = column, values, ordered


def scalar(node: Scalar, printed: str, values: list) -> Example:
    return Example(node, Project(t, (Named(node, "v"),)), printed, "v", values)


def hosted(relation: Relation, node: Scalar, printed: str, column: str, values: list) -> Example:
    return Example(node, relation, printed, column, values)


def relation(rel: Relation, printed: str, column: str, values: list, ordered: bool = False) -> Example:
    return Example(rel, rel, printed, column, values, ordered)


gt1 = Call(Fn.GT, (i, lit(1)), B)
times_ten = Lambda("e", Call(Fn.MULTIPLY, (Variable("e", I), lit(10)), I), I)
above_one = Lambda("e", Call(Fn.GT, (Variable("e", I), lit(1)), B), B)
sum_i = AggregateCall(AggFn.SUM, (i,), I)
count_by_null_s = WindowCall(WindowFn.COUNT_ALL, partition_by=(IsNull(s),))
row_number_by_i = WindowCall(WindowFn.ROW_NUMBER, order_by=(SortKey(i, nulls_first=False),))

EXAMPLES = {
    ex.node.__class__: ex
    for ex in [
        scalar(i, "i", [1, 2, None]),
        scalar(lit(7), "7", [7, 7, 7]),
        scalar(Call(Fn.ADD, (i, lit(10)), I), "(i + 10)", [11, 12, None]),
        scalar(
            IfThen(((gt1, lit("big", S)),), lit("small", S), S),
            "CASE WHEN (i > 1) THEN 'big' ELSE 'small' END",
            ["small", "big", "small"],
        ),  # NULL > 1 is not true
        scalar(Cast(i, S), "CAST(i AS string)", ["1", "2", None]),
        scalar(IsNull(s), "(s IS NULL)", [False, True, False]),
        scalar(In(i, (lit(1), lit(5))), "(i IN (1, 5))", [True, False, None]),
        scalar(Between(i, lit(2), lit(3)), "(i BETWEEN 2 AND 3)", [False, True, None]),
        scalar(Like(s, lit("a%", S)), "(s LIKE 'a%')", [True, None, False]),
        scalar(RLike(s, lit("b$", S)), "(s RLIKE 'b$')", [True, None, False]),
        hosted(Aggregate(t, (), (Named(sum_i, "v"),)), sum_i, "sum(i) AS v", "v", [3]),
        hosted(
            Window(t, (Named(count_by_null_s, "v"),)),
            count_by_null_s,
            "count_all() OVER (PARTITION BY (s IS NULL))",
            "v",
            [2, 1, 2],
        ),
        hosted(
            Project(t, (Named(Call(Fn.ARRAY_FILTER, (xs, above_one), array(I)), "v"),)),
            Variable("e", I),
            "array_filter(xs, e -> (e > 1))",
            "v",
            [[2], None, [3]],
        ),
        hosted(
            Project(t, (Named(Call(Fn.ARRAY_MAP, (xs, times_ten), array(I)), "v"),)),
            times_ten,
            "e -> (e * 10)",
            "v",
            [[10, 20], None, [30]],
        ),
        relation(t, "Read t [i, s, xs]", "i", [1, 2, None]),
        relation(Sql("SELECT i FROM t WHERE i > 1", ("t",)), "Sql[spark] 'SELECT i FROM t WHERE i > 1'", "i", [2]),
        relation(Filter(t, gt1), "Filter (i > 1)", "i", [2]),
        relation(Project(t, (Named(Call(Fn.ADD, (i, i), I), "v"),)), "Project (i + i) AS v", "v", [2, 4, None]),
        relation(
            Aggregate(t, (Named(IsNull(s), "k"),), (Named(count_all(), "n"),)),
            "Aggregate keys=[(s IS NULL) AS k] measures=[count_all(*) AS n]",
            "n",
            [1, 2],
        ),
        relation(Join(JoinKind.INNER, t, u, Call(Fn.EQ, (i, Field("k", I)), B)), "Join[inner] ON (i = k)", "i", [2]),
        relation(Distinct(Project(t, (Named(Call(Fn.GT, (i, lit(0)), B), "v"),))), "Distinct", "v", [True, None]),
        relation(
            Sort(t, (SortKey(i, ascending=False, nulls_first=False),)),
            "Sort i DESC NULLS LAST",
            "i",
            [2, 1, None],
            ordered=True,
        ),
        relation(Limit(Sort(t, (SortKey(i),)), 1), "Limit 1", "i", [None]),  # NULLs first
        relation(
            Window(t, (Named(row_number_by_i, "rn"),)),
            "Window row_number() OVER (ORDER BY i ASC NULLS LAST) AS rn",
            "rn",
            [1, 2, 3],
        ),
    ]
}


def _rows(engine, rel: Relation) -> list[dict]:
    return engine.run(Plan((), (Query("q", rel),)), SOURCES)["q"]


def _check_values(example: Example, rows: list[dict]) -> None:
    got = [row[example.column] for row in rows]
    if example.ordered:
        assert got == example.values
    else:
        assert sorted(got, key=repr) == sorted(example.values, key=repr)


def printer(example: Example, request) -> None:
    assert example.printed in format_relation(example.relation)


def children(example: Example, request) -> None:
    """The generic children are exactly the nodes the fields hold, and rebuilding keeps them."""
    node = example.node
    kind = Scalar if isinstance(node, Scalar) else Relation
    subs = node.children() if isinstance(node, Scalar) else node.inputs()
    assert all(isinstance(sub, kind) for sub in subs)
    assert node.rebuilt(kind, lambda sub: sub) is node
    copied = node.rebuilt(kind, lambda sub: dataclasses.replace(sub))
    assert copied == node and (copied is node) == (not subs)
    walker = walk if kind is Scalar else walk_relations
    assert next(iter(walker(node))) is node and set(subs) <= set(walker(node))


def rename(example: Example, request) -> None:
    """Substitution reaches every column reference of the node, wherever the fields hold it."""
    node = example.node
    exprs = [node] if isinstance(node, Scalar) else node.expressions()
    renamed = [substitute(e, lambda n: Field(n.name + "2", n.dtype) if isinstance(n, Field) else None) for e in exprs]
    assert [field_names(e) for e in renamed] == [{name + "2" for name in field_names(e)} for e in exprs]
    assert [type(e) for e in renamed] == [type(e) for e in exprs]


def prune(example: Example, request) -> None:
    """Pruned to the example's column, t is read with only the columns used, and the values hold."""
    pruned = prune_columns(example.relation, frozenset({example.column}))
    used = set().union(*(field_names(e) for r in walk_relations(example.relation) for e in r.expressions()))
    for read in walk_relations(pruned):
        if isinstance(read, Read) and not isinstance(example.relation, Distinct):  # DISTINCT needs all
            kept = set(read.source_schema.names)
            # reading no column, the rows still count: the first column is kept for them
            assert kept <= used | {example.column} or kept == {SOURCES[read.source].frame.column_names[0]}
    _check_values(example, _rows(request.getfixturevalue("duckdb_engine"), pruned))


def scans(example: Example, request) -> None:
    read_once = pytest.importorskip("gryph.client.spark.rewrites.read_once")
    assert read_once.scans([example.relation])["t"] == 1


def duckdb(example: Example, request) -> None:
    _check_values(example, _rows(request.getfixturevalue("duckdb_engine"), example.relation))


def spark(example: Example, request) -> None:
    _check_values(example, _rows(request.getfixturevalue("spark_conformance_engine"), example.relation))


WALKERS = [printer, children, rename, prune, scans, duckdb, spark]


class Case(NamedTuple):
    node_type: type
    walker: object


def _cases() -> list:
    return [
        pytest.param(
            Case(node_type, walker),
            id=f"{node_type.__name__}-{walker.__name__}",
            marks=[pytest.mark.spark] if walker is spark else [],
        )
        for node_type in SCALAR_TYPES + RELATION_TYPES
        for walker in WALKERS
    ]


@pytest.mark.parametrize("case", _cases())
def test_every_node_through_every_walker(case: Case, request):
    example = EXAMPLES.get(case.node_type)
    assert example is not None, f"no example of {case.node_type.__name__}: add one to EXAMPLES"
    case.walker(example, request)


def test_the_registries_come_from_the_class_tree():
    assert {t.__name__ for t in SCALAR_TYPES} == {
        "Field",
        "Literal",
        "Call",
        "IfThen",
        "Cast",
        "IsNull",
        "In",
        "Between",
        "Like",
        "RLike",
        "AggregateCall",
        "WindowCall",
        "Variable",
        "Lambda",
    }
    assert {t.__name__ for t in RELATION_TYPES} == {
        "Read",
        "Sql",
        "Filter",
        "Project",
        "Aggregate",
        "Join",
        "Distinct",
        "Sort",
        "Limit",
        "Window",
    }
    assert Counter(SCALAR_TYPES + RELATION_TYPES).most_common(1)[0][1] == 1


@pytest.mark.parametrize(
    "build,message",
    [
        (lambda: Call(Fn.ADD, (i,), I), "add takes 2 argument"),
        (lambda: Call(Fn.SUBSTRING, (s,), S), "substring takes 2 to 3 argument"),
        (lambda: Call(Fn.CONCAT_WS, (s,), S), "concat_ws takes at least 2 argument"),
        (lambda: Call(Fn.AND, (i, i), B), "and takes boolean arguments"),
        (lambda: Call(Fn.ARRAY_MAP, (xs, xs), array(I)), "a Lambda goes only as the last argument"),
        (lambda: Call(Fn.ADD, (times_ten, i), I), "a Lambda goes only as the last argument"),
    ],
)
def test_scalar_nodes_check_their_arguments_when_built(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_a_lambda_parameter_named_as_a_column_reads_the_element(dq_engine):
    """``xs.map(i -> i + t.i)``: row 1 (i = 1, xs = [1, 2]) gives [2, 3], row 3 (i NULL, xs = [3]) [NULL]."""
    body = Call(Fn.ARRAY_MAP, (xs, Lambda("i", Call(Fn.ADD, (Variable("i", I), i), I), I)), array(I))
    rows = _rows(dq_engine, Project(t, (Named(body, "v"),)))
    assert sorted((r["v"] for r in rows), key=repr) == sorted([[2, 3], None, [None]], key=repr)


def test_an_inner_lambda_binds_its_own_parameter(dq_engine):
    """``xs.map(e -> xs.filter(e -> e > 1))``: the inner e is the inner element, so row 1 gives
    [[2], [2]] (bound to the outer element it would give [[], [1, 2]]), row 3 [[3]]."""
    inner = Lambda("e", Call(Fn.GT, (Variable("e", I), lit(1)), B), B)
    outer = Lambda("e", Call(Fn.ARRAY_FILTER, (xs, inner), array(I)), array(I))
    rows = _rows(dq_engine, Project(t, (Named(Call(Fn.ARRAY_MAP, (xs, outer), array(array(I))), "v"),)))
    assert sorted((r["v"] for r in rows), key=repr) == sorted([[[2], [2]], None, [[3]]], key=repr)
