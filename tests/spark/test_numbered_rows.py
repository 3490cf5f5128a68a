"""Record samples of a join's rows of a kept source: the join carries row numbers, not every
column, and the sample fetches its whole rows from the copy by number (numbered_rows.py)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from gryph.client.runner import load_suite, run as run_on
from gryph.client.spark.numbered_rows import number_samples
from gryph.client.spark.shuffled import Shuffled
from gryph.compiler.plan import (
    Aggregate,
    Field,
    Filter,
    IsNull,
    Join,
    JoinKind,
    Limit,
    Named,
    Query,
    Read,
    count_all,
    format_relation,
)
from gryph.compiler.types import INTEGER, STRING, schema

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
    import gryph.client.spark.read_once as read_once_module
    import gryph.client.spark.small_runs as small_runs
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


def test_only_samples_of_a_joins_rows_of_a_kept_source_are_fetched_by_number():
    t = Read("t", schema(("a", INTEGER), ("b", STRING), ("__gryph_row_x", INTEGER)))
    u = Read("u", schema(("c", INTEGER)))
    a = Field("a", INTEGER)
    misses = Filter(Join(JoinKind.ANTI, t, u, IsNull(a)), IsNull(Field("b", STRING)))
    queries = [
        Query("misses", Limit(misses, 20)),
        Query("nulls", Limit(Filter(t, IsNull(a)), 20)),  # a filter's sample stops early by itself
        Query("all misses", misses),  # not a sample
        Query("miss count", Aggregate(misses, (), (Named(count_all(), "n"),))),
        # counts that read a column, or count other rows, keep their own relation
        Query("null misses", Aggregate(misses, (), (Named(count_all(IsNull(a)), "n"),))),
        Query("rows", Aggregate(t, (), (Named(count_all(), "n"),))),
    ]
    rewritten, numbered = number_samples(queries, {"t": None})
    # the data's column starts with the usual name: the numbers take another
    assert numbered == {"t": "___gryph_row"}
    assert rewritten[1:3] == queries[1:3] and rewritten[4:] == queries[4:]
    text = format_relation(rewritten[0].relation)
    assert "Join[semi]" in text and "Join[anti]" in text and "Limit 20" in text, text
    assert rewritten[0].relation.schema == queries[0].relation.schema
    # the miss count counts the very numbers the sample takes its 20 from: one shuffle for both
    sample_numbers = rewritten[0].relation.input.right.input.input
    assert isinstance(sample_numbers, Shuffled) and sample_numbers.by == "___gryph_row"
    assert rewritten[3].relation == Aggregate(sample_numbers, (), (Named(count_all(), "n"),))
    assert format_relation(sample_numbers) == "\n".join(
        [
            "Shuffled by ___gryph_row",
            "  Project ___gryph_row",
            "    Filter (b IS NULL)",
            "      Join[anti] ON (a IS NULL)",
            "        Read t [a, b, __gryph_row_x, ___gryph_row]",
            "        Read u [c]",
        ]
    ), format_relation(sample_numbers)
    # not kept: nothing to number
    assert number_samples(queries, {"u": None}) == (queries, {})
