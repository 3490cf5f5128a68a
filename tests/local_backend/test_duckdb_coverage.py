"""The engine handles every plan node and every catalogue entry; the rest fails as it says."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.errors import UnsupportedError
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
    Project,
    RLike,
    Sort,
    SortKey,
    Sql,
    Variable,
    Window,
    WindowCall,
    WindowFn,
)
from gryph.compiler.plan.data_types import (
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    JSON,
    STRING,
    TIMESTAMP,
    array,
    map_of,
    struct,
)
from gryph.local_backend.sql.relations import Aliases, relation_sql
from gryph.local_backend.sql.scalars import magnitude_bits, scalar_sql

I, D, S, B = INTEGER, DOUBLE, STRING, BOOLEAN
COLUMNS = {
    "i": pa.array([3, None], pa.int64()),
    "d": pa.array([2.5, float("nan")]),
    "s": pa.array([" ab ", None]),
    "b": pa.array([True, None]),
    "ts": pa.array([0, None], pa.timestamp("us")),
    "xs": pa.array([[1, 2], None], pa.list_(pa.int64())),
    "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
    "st": pa.array([{"f": 1}, None], pa.struct([("f", pa.int64())])),
    "j": pa.array(['{"a": [1, 2]}', "not json"]),
}
i, d, s, b, ts = Field("i", I), Field("d", D), Field("s", S), Field("b", B), Field("ts", TIMESTAMP)
xs, j = Field("xs", array(I)), Field("j", S)


def one(value, dtype):
    return Literal(value, dtype)


def sample_args(fn: Fn) -> tuple[tuple, object]:
    """Arguments and result type of a sensible call of each catalogue function."""
    numeric2 = ((i, one(2, I)), I)
    table = {
        Fn.ADD: numeric2,
        Fn.SUBTRACT: numeric2,
        Fn.MULTIPLY: numeric2,
        Fn.MODULO: numeric2,
        Fn.DIVIDE: ((d, i), D),
        Fn.NEGATE: ((i,), I),
        Fn.POWER: ((d, one(2, I)), D),
        Fn.AND: ((b, b), B),
        Fn.OR: ((b, b), B),
        Fn.NOT: ((b,), B),
        Fn.COALESCE: ((i, one(0, I)), I),
        Fn.IS_NAN: ((d,), B),
        Fn.LENGTH: ((s,), I),
        Fn.SUBSTRING: ((s, one(1, I), one(2, I)), S),
        Fn.CONCAT: ((s, s), S),
        Fn.REPLACE: ((s, one("a", S), one("b", S)), S),
        Fn.ABS: ((d,), D),
        Fn.ROUND: ((d, one(1, I)), D),
        Fn.FLOOR: ((d,), I),
        Fn.CEIL: ((d,), I),
        Fn.SQRT: ((d,), D),
        Fn.LEAST: ((i, one(1, I)), I),
        Fn.GREATEST: ((i, one(1, I)), I),
        Fn.TO_DATE: ((ts,), DATE),
        Fn.EPOCH_MILLIS: ((ts,), I),
        Fn.ELEMENT_AT: ((Field("xs", array(I)), one(0, I)), I),
        Fn.GET_FIELD: ((Field("st", struct((("f", I),))), one("f", S)), I),
        Fn.ARRAY_MAP: ((xs, Lambda("e", Call(Fn.ADD, (Variable("e", I), one(1, I)), I), I)), array(I)),
        Fn.ARRAY_FILTER: ((xs, Lambda("e", Call(Fn.GT, (Variable("e", I), one(1, I)), B), B)), array(I)),
        Fn.FLATTEN: ((Call(Fn.ARRAY_MAP, (xs, Lambda("e", xs, array(I))), array(array(I))),), array(I)),
        Fn.SLICE: ((xs, one(0, I), one(-1, I)), array(I)),
        Fn.ARRAY_DISTINCT: ((xs,), array(I)),
        Fn.JSON_PARSE: ((j,), JSON),
        Fn.JSON_FIELD: ((j, one("a", S)), JSON),
        Fn.JSON_ITEMS: ((Call(Fn.JSON_FIELD, (j, one("a", S)), JSON),), array(JSON)),
        Fn.CONCAT_WS: ((one(",", S), s, s), S),
        Fn.LPAD: ((s, one(5, I), one("x", S)), S),
        Fn.RPAD: ((s, one(5, I), one("", S)), S),
        Fn.STRPOS: ((s, one("a", S)), I),
        Fn.REPEAT: ((s, i), S),
        Fn.REGEXP_EXTRACT: ((s, one("(a)", S), one(1, I)), S),
        Fn.REGEXP_REPLACE: ((s, one("(a)", S), one("$1\\$", S)), S),
        Fn.SPLIT: ((s, one(",", S)), array(S)),
        Fn.SIGN: ((d,), D),
        Fn.EPOCH_SECONDS: ((ts,), I),
        Fn.TIMESTAMP_SECONDS: ((i,), TIMESTAMP),
        Fn.LAST_DAY: ((Cast(ts, DATE),), DATE),
        Fn.DATE_ADD: ((Cast(ts, DATE), i), DATE),
        Fn.DATE_DIFF: ((Cast(ts, DATE), Cast(ts, DATE)), I),
        Fn.ADD_MONTHS: ((Cast(ts, DATE), i), DATE),
        Fn.DATE_FORMAT: ((ts, one("yyyy-MM-dd'T'HH", S)), S),
        Fn.SIZE: ((xs,), I),
        Fn.MAKE_ARRAY: ((i, one(1, I)), array(I)),
        Fn.MAKE_STRUCT: ((one("f g", S), i), struct((("f g", I),))),
        Fn.ARRAY_CONTAINS: ((xs, i), B),
        Fn.MAP_KEYS: ((Field("m", map_of(S, I)),), array(S)),
        Fn.MAP_VALUES: ((Field("m", map_of(S, I)),), array(I)),
    }
    if fn in table:
        return table[fn]
    if fn in (Fn.EQ, Fn.NE, Fn.LT, Fn.LE, Fn.GT, Fn.GE, Fn.EQ_NULL_SAFE):
        return (i, one(3, I)), B
    if fn in (Fn.UPPER, Fn.LOWER, Fn.TRIM, Fn.LTRIM, Fn.RTRIM, Fn.REVERSE):
        return (s,), S
    if fn in (Fn.STARTS_WITH, Fn.ENDS_WITH, Fn.CONTAINS):
        return (s, one("a", S)), B
    if fn in (Fn.LN, Fn.LOG10, Fn.LOG2, Fn.EXP):
        return (d,), D
    if fn in (
        Fn.YEAR,
        Fn.MONTH,
        Fn.DAY,
        Fn.HOUR,
        Fn.MINUTE,
        Fn.SECOND,
        Fn.DAY_OF_WEEK,
        Fn.DAY_OF_YEAR,
        Fn.WEEK_OF_YEAR,
        Fn.QUARTER,
    ):
        return (ts,), I
    raise AssertionError(f"no sample for {fn}")


SCALARS = [
    Field("i", I),
    one(1, I),
    IfThen(((b, i),), one(0, I), I),
    Cast(s, I),
    IsNull(s),
    In(i, (one(3, I),)),
    Between(i, one(1, I), one(5, I)),
    Like(s, one("%a%", S)),
    RLike(s, one("a", S)),
    Call(Fn.ELEMENT_AT, (Field("m", map_of(S, I)), one("k", S)), I),
]


def test_every_function_runs(bench):
    read = bench.table("t", COLUMNS)
    calls = [Call(fn, *sample_args(fn)) for fn in Fn]
    project = Project(read, tuple(Named(c, f"c{n}") for n, c in enumerate(calls + SCALARS)))
    # lambdas and their variables live inside ARRAY_MAP / ARRAY_FILTER calls
    assert {type(node) for node in SCALARS} | {Call} >= set(SCALAR_TYPES) - {
        AggregateCall,
        WindowCall,
        Lambda,
        Variable,
    }
    (first, _) = bench.rows(project)
    assert len(first) == len(calls) + len(SCALARS)


def test_every_aggregate_and_window_runs(bench):
    read = bench.table("t", COLUMNS)

    def arguments(fn):
        if fn is AggFn.COUNT_ALL:
            return ()
        return (d, Literal(0.5, D)) if fn is AggFn.PERCENTILE_DISC else (d,)

    measures = tuple(
        Named(AggregateCall(fn, arguments(fn), D if fn not in (AggFn.COUNT, AggFn.COUNT_ALL) else I), fn.value)
        for fn in AggFn
    )
    assert len(bench.rows(Aggregate(read, (), measures))) == 1
    windows = tuple(Named(WindowCall(fn, (s,), (SortKey(i),)), fn.value) for fn in WindowFn)
    assert len(bench.rows(Window(read, windows))) == 2


def test_every_relation_runs(bench):
    """t holds i = 3 and i = NULL (b true and NULL); u holds k = 3."""
    read = bench.table("t", COLUMNS)
    other = bench.table("u", {"k": [3]})
    on = Call(Fn.EQ, (i, Field("k", I)), B)
    joined = {
        JoinKind.INNER: [3],
        JoinKind.LEFT: [3, None],
        JoinKind.ANTI: [None],
        JoinKind.SEMI: [3],
        JoinKind.CROSS: [3, None],
    }
    cases = [  # (relation, the column to look at, its values in order)
        (read, "i", [3, None]),
        (Sql("SELECT i FROM t", ("t",)), "i", [3, None]),
        (Filter(read, b), "i", [3]),
        (Project(read, (Named(i, "x"),)), "x", [3, None]),
        (Aggregate(read, (Named(s, "s"),), (Named(AggregateCall(AggFn.COUNT_ALL, (), I), "n"),)), "n", [1, 1]),
        *(
            (Join(kind, read, other, None if kind is JoinKind.CROSS else on), "i", values)
            for kind, values in joined.items()
        ),
        (Distinct(read), "i", [3, None]),
        (Sort(read, (SortKey(i),)), "i", [None, 3]),
        (Limit(read, 1), "i", None),
        (Window(read, (Named(WindowCall(WindowFn.ROW_NUMBER), "rn"),)), "rn", [1, 2]),
    ]
    assert {type(r) for r, _, _ in cases} == set(RELATION_TYPES)
    for relation, column, expected in cases:
        got = [row[column] for row in bench.rows(relation)]
        if isinstance(relation, Limit):
            assert len(got) == 1 and got[0] in (3, None)
        elif isinstance(relation, Sort):
            assert got == expected
        else:
            assert sorted(got, key=repr) == sorted(expected, key=repr), relation
    left = bench.rows(Join(JoinKind.LEFT, read, other, on))
    assert sorted((row["i"], row["k"]) for row in left if row["i"] is not None) == [(3, 3)]
    assert [row["k"] for row in left if row["i"] is None] == [None]


def test_unknown_nodes_are_reported_as_unsupported_on_duckdb():
    with pytest.raises(UnsupportedError, match="not supported on duckdb"):
        scalar_sql(object())
    with pytest.raises(UnsupportedError, match="not supported on duckdb"):
        relation_sql(object(), Aliases())
    with pytest.raises(UnsupportedError, match="not supported on duckdb"):
        relation_sql(Sql("SELECT 1", (), dialect="oracle"), Aliases())
    with pytest.raises(UnsupportedError, match="not supported on duckdb"):
        scalar_sql(Call(Fn.ELEMENT_AT, (Field("s", S), one(0, I)), I))


def test_overflow_checks_only_where_64_bits_may_not_hold():
    """A latency (one time's milliseconds less another's) fits 64 bits; other integer sums may not."""
    start, end = Field("start", TIMESTAMP), Field("end", TIMESTAMP)
    millis = lambda t: Call(Fn.EPOCH_MILLIS, (t,), I)  # noqa: E731
    latency = Call(Fn.SUBTRACT, (millis(end), millis(start)), I)
    assert magnitude_bits(latency) == 55
    assert "TRY(" not in scalar_sql(latency)
    assert magnitude_bits(Call(Fn.ADD, (latency, one(2**62, I)), I)) == 64
    assert "TRY(" in scalar_sql(Call(Fn.ADD, (latency, one(2**62, I)), I))
    assert "TRY(" in scalar_sql(Call(Fn.ADD, (i, one(1, I)), I))
