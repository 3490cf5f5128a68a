"""Scan sharing, shown on Spark's own physical plans: one scan per source, one join per accuracy."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.parquet as pq

from gryph.client.run.runner import compile_for, load_suite
from gryph.client.run.runner import run as run_on
from gryph.client.spark.compile.histograms import shared_histograms
from gryph.client.spark.compile.relations import compile_relation
from gryph.compiler.lowering import Options

SUITE = """
source users = parquet("{users}")
source copy = parquet("{copy}")
completeness contact on users: email
distinctness ids on users: id
profiling stats on users: count(*) as n, max(id) as top, avg(id) as mean
timeliness lag on users: begin_ms, end_ms with percentile.values = (0.5)
accuracy same on users, copy: users.id = copy.id and users.email = copy.email
"""


def _write(path, ids, emails):
    table = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "email": pa.array(emails, pa.string()),
            "begin_ms": pa.array([0] * len(ids), pa.int64()),
            "end_ms": pa.array(list(range(len(ids))), pa.int64()),
        }
    )
    pq.write_table(table, path)


def _physical_plans(spark_engine, tmp_path):
    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(SUITE.format(users=users, copy=copy))
    compiled = compile_for(suite, spark_engine, Options(record_sample=0))
    plans = {}
    with spark_engine._registered(
        compiled.plan.views, [q.relation for q in compiled.plan.queries], suite.sources
    ) as ctx:
        for query in compiled.plan.queries:
            text = compile_relation(query.relation, ctx)._explain_string(mode="formatted")
            plans[query.name] = text.split("\n\n")[0]  # the operator tree, before the node details
    return plans


def _scans(plan: str, name: str) -> int:
    return len(re.findall(rf"Scan parquet[^\n]*{name}", plan)) or plan.count(f"{name}.parquet]")


def test_each_source_is_scanned_once_for_its_fused_aggregates(spark_engine, tmp_path):
    plans = _physical_plans(spark_engine, tmp_path)
    # the plain aggregate query of users: completeness, profiling, timeliness total and sum
    plain = [
        name
        for name, plan in plans.items()
        if "Join" not in plan and "Window" not in plan and plan.count("HashAggregate") <= 2
    ]
    assert len(plain) == 1, plans
    assert plans[plain[0]].count("Scan parquet") == 1, plans[plain[0]]


def test_accuracy_is_one_join(spark_engine, tmp_path):
    plans = _physical_plans(spark_engine, tmp_path)
    joined = [plan for plan in plans.values() if "Join" in plan]
    assert len(joined) == 1, plans
    assert len(re.findall(r"\bJoin\b|BroadcastHashJoin|SortMergeJoin|ShuffledHashJoin", joined[0])) == 1
    assert joined[0].count("Scan parquet") == 2  # users once, copy once


def test_distinct_counts_stay_out_of_the_percentile_aggregate(spark_engine, tmp_path):
    users = tmp_path / "users.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    suite = load_suite(
        f'source users = parquet("{users}")\n'
        "timeliness lag on users: begin_ms, end_ms with percentile.values = (0.5)\n"
        "profiling ids on users: count(distinct id) as ids\n"
    )
    compiled = compile_for(suite, spark_engine, Options(record_sample=0))
    (query,) = compiled.plan.queries  # one fused aggregate in the plan ...
    with spark_engine._registered((), [query.relation], suite.sources) as ctx:
        plan = compile_relation(query.relation, ctx)._explain_string(mode="formatted").split("\n\n")[0]
    # ... that Spark runs as two aggregates joined, so no Expand copies the percentile's rows
    assert "Expand" not in plan and plan.count("Scan parquet") == 2, plan
    result = run_on(suite, spark_engine, record_sample=0)
    # latencies 0, 1, 2, 3: the median is 1; ids 1, 2, 3
    assert result.metrics["lag"]["percentile_50"] == 1 and result.metrics["ids"] == [{"ids": 3}]


def test_key_histograms_over_one_source_are_one_scan(spark_engine, tmp_path):
    users = tmp_path / "users.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    suite = load_suite(
        f'source users = parquet("{users}")\n'
        "distinctness ids on users: id\n"
        "uniqueness pairs on users: id, email\n"
        "distinctness emails on users: upper(email) as e\n"
    )
    compiled = compile_for(suite, spark_engine, Options(record_sample=0))
    (shared,) = shared_histograms(compiled.plan.queries)
    assert len(shared.queries) == 3
    with spark_engine._registered((), [q.relation for q in shared.queries], suite.sources) as ctx:
        df, _ = shared.dataframe(ctx)
        plan = df._explain_string(mode="formatted").split("\n\n")[0]
    # one read of users, each row expanded once per key set on the way to one aggregate
    assert plan.count("Scan parquet") == 1 and "Expand" in plan, plan
    from gryph.client.spark import SparkEngine

    # the engine takes this way when it reads sources per scan
    result = run_on(suite, SparkEngine(connection=spark_engine.connection, read_once=False), record_sample=0)
    # ids 1, 2, 2, 3: three values; (id, email) pairs all differ: four unique; emails A, NULL, B, C
    assert (
        result.metrics["ids"]["distinct"],
        result.metrics["pairs"]["unique"],
        result.metrics["emails"]["distinct"],
    ) == (3, 4, 4)


def _spied_run(engine, suite, monkeypatch, large: bool = True, record_sample: int = 0):
    """Run ``suite``; returns the metrics, the sources kept for the run (name, columns, small)
    and each query's plan. ``large``: the files count as large ones."""
    import gryph.client.spark.engine as engine_module
    import gryph.client.spark.rewrites.read_once as read_once
    import gryph.client.spark.rewrites.small_sources as small_runs

    kept, plans = [], []
    keep, collect_together = read_once.keep, engine_module.collect_together

    def spy_keep(df, columns, name, small=False, numbered=None):
        kept.append((name, columns, small))
        return keep(df, columns, name, small, numbered)

    def spy_collect(parts, **options):
        plans.extend(p.df._explain_string(mode="formatted") for p in parts)
        return collect_together(parts, **options)

    monkeypatch.setattr(read_once, "keep", spy_keep)
    if large:
        monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)  # these few rows stand for large files
    monkeypatch.setattr(engine_module, "collect_together", spy_collect)
    return run_on(suite, engine, record_sample=record_sample).metrics, kept, plans


def test_a_run_reads_each_source_once(spark_engine, tmp_path, monkeypatch):
    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(SUITE.format(users=users, copy=copy))
    metrics, kept, plans = _spied_run(spark_engine, suite, monkeypatch)
    # users feeds the fused aggregate, the key histogram and the accuracy join: it is read once,
    # with only the columns the rules use; the copy feeds the join alone and is read by it
    assert kept == [("users", frozenset({"id", "email", "begin_ms", "end_ms"}), False)]
    # (a scan's details name its files: "Location: InMemoryFileIndex [file:/.../users.parquet]")
    assert len(plans) > 1 and sum(plan.count("users.parquet]") for plan in plans) == 0, plans
    assert sum(plan.count("copy.parquet]") for plan in plans) == 1, plans
    # by hand: ids 1 2 2 3 with emails a NULL b c; the copy holds (1, a) and (2, b)
    assert metrics["contact"]["complete"] == 3 and metrics["ids"]["distinct"] == 3
    assert metrics["stats"] == [{"n": 4, "top": 3, "mean": 2.0}]
    assert metrics["lag"]["percentile_50"] == 1  # latencies 0 1 2 3 ms
    assert (metrics["same"]["total"], metrics["same"]["miss"], metrics["same"]["matched"]) == (4, 2, 2)


def test_without_read_once_every_query_scans_its_files(spark_engine, tmp_path, monkeypatch):
    from gryph.client.spark import SparkEngine

    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(SUITE.format(users=users, copy=copy))
    rereading = SparkEngine(connection=spark_engine.connection, read_once=False)
    metrics, kept, plans = _spied_run(rereading, suite, monkeypatch)
    assert kept == [] and sum(plan.count("users.parquet]") for plan in plans) == 3, plans
    assert (metrics["same"]["total"], metrics["same"]["miss"]) == (4, 2)


def test_two_sources_each_read_twice_are_both_kept(spark_engine, tmp_path, monkeypatch):
    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(
        f'source users = parquet("{users}")\nsource copy = parquet("{copy}")\n'
        "accuracy same on users, copy: users.id = copy.id and users.email = copy.email\n"
        "accuracy ids on users, copy: users.id = copy.id\n"
        "completeness user_emails on users: email\n"
        "completeness copy_emails on copy: email\n"
    )
    metrics, kept, plans = _spied_run(spark_engine, suite, monkeypatch)
    assert sorted(kept) == [("copy", frozenset({"id", "email"}), False), ("users", frozenset({"id", "email"}), False)]
    assert not any("users.parquet]" in plan or "copy.parquet]" in plan for plan in plans), plans
    # by hand: (2, NULL) and (3, c) have no equal copy row; only id 3 is missing from the copy
    assert (metrics["same"]["miss"], metrics["ids"]["miss"], metrics["ids"]["matched"]) == (2, 1, 3)
    assert (
        metrics["user_emails"]["incomplete"],
        metrics["copy_emails"]["total"],
        metrics["copy_emails"]["incomplete"],
    ) == (1, 2, 0)


def test_scans_are_counted_through_views_sql_and_split_aggregates():
    from gryph.client.spark.rewrites.read_once import scans
    from gryph.compiler.plan import (
        AggFn,
        Aggregate,
        AggregateCall,
        Field,
        Join,
        JoinKind,
        Literal,
        Named,
        Project,
        Read,
        Sql,
        View,
    )
    from gryph.compiler.plan.data_types import DOUBLE, INTEGER, schema

    t = Read("t", schema(("a", INTEGER)))
    a = Field("a", INTEGER)
    renamed = Project(Read("t", schema(("a", INTEGER))), (Named(a, "b"),))
    view = View("v", Join(JoinKind.CROSS, t, renamed, None))  # reads t twice
    v = Read("v", view.relation.schema)
    both = Join(JoinKind.CROSS, v, Project(v, (Named(a, "c"), Named(Field("b", INTEGER), "d"))), None)
    split = Aggregate(
        t,
        (),
        (
            Named(AggregateCall(AggFn.COUNT, (a,), INTEGER, distinct=True), "n"),
            Named(AggregateCall(AggFn.PERCENTILE_DISC, (a, Literal(0.5, DOUBLE)), INTEGER), "p"),
        ),
    )
    sql = Sql("select * from t join u", ("t", "u"))
    # the view twice (2 x 2), the split aggregate twice, the SQL text once each
    assert scans([both, split, sql], (view,)) == {"t": 7, "u": 1}


def test_a_few_rows_of_a_scan_are_no_reason_to_keep_a_copy():
    from gryph.client.spark.rewrites.read_once import sources_to_keep
    from gryph.compiler.plan import Field, Filter, IsNull, Join, JoinKind, Limit, Named, Project, Read
    from gryph.compiler.plan.data_types import INTEGER, schema
    from gryph.compiler.sources.source_specs import SourceSpec

    sources = {name: SourceSpec(name, "table", table=name) for name in ("t", "u")}
    t = Read("t", schema(("a", INTEGER), ("b", INTEGER)))
    a, b = Field("a", INTEGER), Field("b", INTEGER)
    # two record samples of t's second step: each stops at its 20th row, a copy reads every row
    samples = [Limit(Filter(t, IsNull(a)), 20), Limit(Project(Filter(t, IsNull(b)), (Named(b, "c"),)), 20)]
    assert sources_to_keep(samples, (), sources, small=False) == {}
    # a sample over a join reads all of t: with one more full scan, t is kept, with both columns
    u = Read("u", schema(("d", INTEGER)))
    joined = Limit(Join(JoinKind.ANTI, t, u, IsNull(Field("d", INTEGER))), 20)
    assert sources_to_keep([*samples, joined], (), sources, small=False) == {}
    both = {"t": frozenset({"a", "b"})}
    assert sources_to_keep([*samples, joined, Filter(t, IsNull(a))], (), sources, small=False) == both
    # in a small run a copy saves the samples' exchanges too: every scan counts, u's one does not
    assert sources_to_keep(samples, (), sources, small=True) == both
    assert sources_to_keep([*samples, joined], (), sources, small=True) == both


def test_a_small_run_reads_each_source_once_into_one_partition_and_shuffles_nothing(
    spark_engine, tmp_path, monkeypatch
):
    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(SUITE.format(users=users, copy=copy))
    from pyspark.sql.connect.dataframe import DataFrame

    collected, collect = [], DataFrame.collect

    def spy_collect(df):
        collected.append(df._explain_string(mode="simple"))
        return collect(df)

    monkeypatch.setattr(DataFrame, "collect", spy_collect)
    metrics, kept, plans = _spied_run(spark_engine, suite, monkeypatch, large=False, record_sample=5)
    # the union of the queries runs as one task: a task per query of a few rows costs more
    # to schedule than to run
    assert len(collected) == 1 and "Coalesce 1" in collected[0], collected
    # users feeds five queries and its samples: one copy in one partition, made lazily by the
    # action; the copy is scanned by the join alone and its sample: kept too
    assert sorted(kept) == [
        ("copy", frozenset({"id", "email"}), True),
        ("users", frozenset({"id", "email", "begin_ms", "end_ms"}), True),
    ]
    assert len(plans) > 1 and not any("Exchange" in plan for plan in plans), plans
    assert sum(plan.count("users.parquet]") + plan.count("copy.parquet]") for plan in plans) == 0, plans
    # by hand, as in test_a_run_reads_each_source_once: the same numbers from one partition
    assert metrics["contact"]["complete"] == 3 and metrics["ids"]["distinct"] == 3
    assert metrics["stats"] == [{"n": 4, "top": 3, "mean": 2.0}]
    assert metrics["lag"]["percentile_50"] == 1
    assert (metrics["same"]["total"], metrics["same"]["miss"], metrics["same"]["matched"]) == (4, 2, 2)
