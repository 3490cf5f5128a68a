"""Record samples of a join's rows of a kept source: the join carries row numbers, not every
column, and the sample fetches its whole rows from the copy by number (numbered_rows.py)."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
import pyarrow.parquet as pq

from gryph.client.run.runner import load_suite
from gryph.client.run.runner import run as run_on
from gryph.client.spark.rewrites.fetched_rows import Fetched
from gryph.client.spark.rewrites.numbered_rows import number_samples
from gryph.compiler.plan import (
    AggFn,
    Aggregate,
    AggregateCall,
    Field,
    Filter,
    IsNull,
    Join,
    JoinKind,
    Limit,
    Literal,
    Named,
    Project,
    Query,
    Read,
    count_all,
    format_relation,
)
from gryph.compiler.plan.data_types import DOUBLE, INTEGER, STRING, schema

# "__gryph_row" is a column of the data: the row numbers must not take it; "名前" is unicode
USERS = {
    "id": pa.array([1, 2, 2, 3, None, 5], pa.int64()),
    "名前": pa.array(["a", "b", "b", None, "n", "é"], pa.string()),
    "__gryph_row": pa.array([10, 20, 30, 40, 50, 60], pa.int64()),
}
COPY = {"id": pa.array([1, 2], pa.int64()), "名前": pa.array(["a", "b"], pa.string())}
SUITE = """
source users = parquet("{users}")
source copy = parquet("{copy}")
accuracy same on users, copy: users.id = copy.id and users.`名前` = copy.`名前`
completeness named on users: `名前`
uniqueness ids on users: id
"""
# by hand: (3, NULL), (NULL, n) and (5, é) have no equal row in the copy; both (2, b) rows have
MISSES = [
    {"id": 3, "名前": None, "__gryph_row": 40},
    {"id": None, "名前": "n", "__gryph_row": 50},
    {"id": 5, "名前": "é", "__gryph_row": 60},
]


def _large_run(spark_engine, tmp_path, monkeypatch, sample: int, read_once: bool = True):
    """The suite over files that count as large, so that users is kept; returns the result and
    the row-number column users' copy was given (None: not numbered)."""
    import gryph.client.spark.rewrites.read_once as read_once_module
    import gryph.client.spark.rewrites.small_sources as small_runs
    from gryph.client.spark import SparkEngine

    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    pq.write_table(pa.table(USERS), users)
    pq.write_table(pa.table(COPY), copy)
    monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)
    numbered, keep = {}, read_once_module.keep

    def spy_keep(df, columns, name, small=False, number=None):
        numbered[name] = number
        return keep(df, columns, name, small, number)

    monkeypatch.setattr(read_once_module, "keep", spy_keep)
    engine = spark_engine if read_once else SparkEngine(connection=spark_engine.connection, read_once=False)
    result = run_on(load_suite(SUITE.format(users=users, copy=copy)), engine, record_sample=sample)
    return result, numbered.get("users")


def _key(row: dict) -> tuple:
    return tuple((name, repr(value)) for name, value in sorted(row.items()))


def test_a_sample_of_misses_is_fetched_whole_by_row_number(spark_engine, tmp_path, monkeypatch):
    result, number = _large_run(spark_engine, tmp_path, monkeypatch, sample=5)
    # users is kept (scanned by the join, the completeness count, the key histogram...) and
    # numbered in a column of its own, not the data's "__gryph_row"
    assert number is not None and number != "__gryph_row" and number.endswith("__gryph_row")
    assert sorted(map(_key, result.records["same"]["sample"])) == sorted(map(_key, MISSES))
    assert (result.metrics["same"]["miss"], result.metrics["same"]["matched"]) == (3, 3)
    # the other samples are as they were: the row without a name, the duplicated id
    assert result.records["named"]["sample"] == [{"id": 3, "名前": None, "__gryph_row": 40}]


def test_the_miss_count_reads_the_numbers_its_sample_takes_from_one_shuffle(spark_engine, tmp_path, monkeypatch):
    from pyspark.sql.connect.dataframe import DataFrame

    plans, collect = [], DataFrame.collect

    def spy_collect(df):
        plans.append(df._explain_string(mode="formatted"))
        return collect(df)

    monkeypatch.setattr(DataFrame, "collect", spy_collect)
    result, number = _large_run(spark_engine, tmp_path, monkeypatch, sample=5)
    (action,) = [plan for plan in plans if "LeftAnti" in plan]
    # the count and the sample each end in the same exchange of the misses' numbers, which
    # Spark writes once per action: the join runs once for both
    assert action.count(f"hashpartitioning({number}#") == 2, action
    assert (result.metrics["same"]["miss"], result.metrics["same"]["matched"]) == (3, 3)


def test_a_sample_smaller_than_the_misses_holds_whole_misses(spark_engine, tmp_path, monkeypatch):
    result, number = _large_run(spark_engine, tmp_path, monkeypatch, sample=2)
    assert number is not None
    sample = result.records["same"]["sample"]
    assert len(sample) == 2 and {_key(row) for row in sample} <= set(map(_key, MISSES)), sample


def test_without_a_kept_copy_the_sample_is_the_join_itself(spark_engine, tmp_path, monkeypatch):
    result, number = _large_run(spark_engine, tmp_path, monkeypatch, sample=5, read_once=False)
    assert number is None
    assert sorted(map(_key, result.records["same"]["sample"])) == sorted(map(_key, MISSES))


T = Read("t", schema(("a", INTEGER), ("b", STRING), ("__gryph_row_x", INTEGER)))
A = Field("a", INTEGER)
JOINED = Join(JoinKind.ANTI, T, Read("u", schema(("c", INTEGER))), IsNull(A))
MISSED = Filter(JOINED, IsNull(Field("b", STRING)))
COUNT = (Named(count_all(), "n"),)
# the numbered read and the sampled relations' numbers, as the rewrite should build them
NUMBERED_T = "Read t [a, b, __gryph_row_x, ___gryph_row]"
MISS_NUMBERS = [
    "Shuffled by ___gryph_row",
    "  Project ___gryph_row",
    "    Filter (b IS NULL)",
    "      Join[anti] ON (a IS NULL)",
    "        " + NUMBERED_T,
    "        Read u [c]",
]
JOINED_NUMBERS = [
    "Shuffled by ___gryph_row",
    "  Project ___gryph_row",
    "    Join[anti] ON (a IS NULL)",
    "      " + NUMBERED_T,
    "      Read u [c]",
]


def _indented(lines: list[str], by: int) -> list[str]:
    return [" " * by + line for line in lines]


def test_only_samples_of_a_joins_rows_of_a_kept_source_are_fetched_by_number():
    queries = [
        Query("misses", Limit(MISSED, 20)),
        Query("nulls", Limit(Filter(T, IsNull(A)), 20)),  # a filter's sample stops early by itself
        Query("all misses", MISSED),  # not a sample
        Query("miss count", Aggregate(MISSED, (), COUNT)),
        # counts that read a column, or count other rows, keep their own relation
        Query("null misses", Aggregate(MISSED, (), (Named(count_all(IsNull(A)), "n"),))),
        Query("rows", Aggregate(T, (), COUNT)),
        Query("joined", Limit(JOINED, 5)),  # a second sample of t, of other rows
    ]
    rewritten, numbered = number_samples(queries, {"t": None})
    # the data's column starts with the usual name: the numbers take another
    assert numbered == {"t": "___gryph_row"}
    # both samples of t are answered by one query, named after the first, that fetches their rows
    assert [q.name for q in rewritten] == ["nulls", "all misses", "miss count", "null misses", "rows", "misses"]
    assert rewritten[:2] == queries[1:3] and rewritten[3:5] == queries[4:6]
    fetch = rewritten[5].relation
    assert isinstance(fetch, Fetched) and fetch.samples == ("misses", "joined")
    assert fetch.columns == ("a", "b", "__gryph_row_x")
    assert format_relation(fetch) == "\n".join(
        [
            "Fetched by ___gryph_row for 'misses', 'joined'",
            "  " + NUMBERED_T,
            "  Project ___gryph_row",
            "    Limit 20",
            *_indented(MISS_NUMBERS, 6),
            "  Project ___gryph_row",
            "    Limit 5",
            *_indented(JOINED_NUMBERS, 6),
        ]
    ), format_relation(fetch)
    # the miss count counts the very numbers the sample takes its 20 from: one shuffle for both
    assert format_relation(rewritten[2].relation) == "\n".join(
        ["Aggregate measures=[count_all(*) AS n]", *_indented(MISS_NUMBERS, 2)]
    )
    assert rewritten[2].relation.input is fetch.wanted[0].input.input
    # not kept: nothing to number
    assert number_samples(queries, {"u": None}) == (queries, {})


# Fetched rows come back through nested arrays: every type must come back as a top-level column
# does. "名 前" and "a.b" are odd names; NaN, NULL, a timestamp.
WIDE = {
    "id": pa.array([1, 2, 2, 3, None, 5], pa.int64()),
    "名 前": pa.array(["a", "b", "b", None, "n", "é"], pa.string()),
    "a.b": pa.array([1.5, float("nan"), float("nan"), None, 2.0, 3.0], pa.float64()),
    "at": pa.array([datetime(2024, 1, d, 3, 4, 5) for d in range(1, 7)], pa.timestamp("us", tz="UTC")),
}
WIDE_COPY = {"id": pa.array([1, 2], pa.int64()), "名 前": pa.array(["a", "b"], pa.string())}


def _wide_row(i: int) -> dict:
    """Row ``i`` of WIDE as the engine returns it (timestamps as UTC text)."""
    return {
        "id": WIDE["id"][i].as_py(),
        "名 前": WIDE["名 前"][i].as_py(),
        "a.b": WIDE["a.b"][i].as_py(),
        "at": f"2024-01-0{i + 1} 03:04:05",
    }


def test_the_samples_of_a_source_are_fetched_whole_in_one_scan(spark_engine, tmp_path, monkeypatch):
    from pyspark.sql.connect.dataframe import DataFrame

    import gryph.client.spark.rewrites.small_sources as small_runs
    from gryph.compiler.plan import Call, Fn, Plan, not_
    from gryph.compiler.plan.data_types import BOOLEAN, TIMESTAMP
    from gryph.compiler.sources.source_specs import SourceSpec
    from tests.support.plan_helpers import multiset, read

    for name, table in (("events", WIDE), ("copy", WIDE_COPY)):
        pq.write_table(pa.table(table), tmp_path / f"{name}.parquet")
    sources = {n: SourceSpec(n, "parquet", paths=(str(tmp_path / f"{n}.parquet"),)) for n in ("events", "copy")}
    events, copy = read(spark_engine, sources["events"]), read(spark_engine, sources["copy"])
    ident, name = Field("id", INTEGER), Field("名 前", STRING)
    target = Project(copy, (Named(Field("id", INTEGER), "__t_id"), Named(Field("名 前", STRING), "__t_name")))
    blank = Literal("", STRING)
    same_name = Call(
        Fn.EQ,
        (Call(Fn.COALESCE, (name, blank), STRING), Call(Fn.COALESCE, (Field("__t_name", STRING), blank), STRING)),
        BOOLEAN,
    )
    on = Call(Fn.AND, (Call(Fn.EQ_NULL_SAFE, (ident, Field("__t_id", INTEGER)), BOOLEAN), same_name), BOOLEAN)
    misses = Filter(Join(JoinKind.ANTI, events, target, on), not_(Call(Fn.AND, (IsNull(ident), IsNull(name)), BOOLEAN)))
    found = Join(JoinKind.SEMI, events, target, Call(Fn.EQ, (ident, Field("__t_id", INTEGER)), BOOLEAN))
    past_100 = Call(Fn.GT, (ident, Literal(100, INTEGER)), BOOLEAN)
    whole = Aggregate(
        events,
        (),
        (
            Named(count_all(), "n"),
            Named(AggregateCall(AggFn.COUNT, (Field("a.b", DOUBLE),), INTEGER), "values"),
            Named(AggregateCall(AggFn.MAX, (Field("at", TIMESTAMP),), TIMESTAMP), "last"),
            Named(AggregateCall(AggFn.PERCENTILE_DISC, (ident, Literal(0.5, DOUBLE)), INTEGER), "median"),
        ),
    )
    plan = Plan(
        (),
        (
            Query("misses", Limit(misses, 20)),
            Query("miss count", Aggregate(misses, (), COUNT)),
            Query("found", Limit(found, 20)),
            Query("none", Limit(Filter(misses, past_100), 20)),
            Query("whole", whole),
        ),
    )
    monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)  # so that events is kept and numbered
    plans, collect = [], DataFrame.collect

    def spy_collect(df):
        plans.append(df._explain_string(mode="formatted"))
        return collect(df)

    monkeypatch.setattr(DataFrame, "collect", spy_collect)
    rows = spark_engine.run(plan, sources)
    # one scan of events' copy finds the rows of all three samples: a join with each one's numbers
    (action,) = [p for p in plans if "LeftAnti" in p]
    assert action.count("BroadcastHashJoin LeftOuter") == 3, action
    # by hand: (3, NULL), (NULL, n) and (5, é) have no equal row in the copy; ids 1, 2, 2 have one
    assert multiset(rows["misses"]) == multiset([_wide_row(i) for i in (3, 4, 5)])
    assert rows["miss count"] == [{"n": 3}]
    assert multiset(rows["found"]) == multiset([_wide_row(i) for i in (0, 1, 2)])
    assert rows["none"] == []
    # NaN counts as a value; ids 1, 2, 2, 3, 5: the third is the median
    assert rows["whole"] == [{"n": 6, "values": 5, "last": "2024-01-06 03:04:05", "median": 2}]
