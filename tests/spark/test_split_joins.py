"""The quarantine split's joins on Spark are sort-merge joins, never broadcasts: the sets they
join with (a uniqueness rule's counts per key, an accuracy rule's target and misses) may hold as
many rows as the source, and a broadcast of a million keys failed the local server ("Not enough
memory to build and broadcast the table", issue 42). Shown on Spark's own physical plans, with
broadcasts allowed by the session as they are by default. The joined rows are the split's kept
view, computed once: both outputs read its copy, not the joins again."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from gryph.client.run.runner import compile_for, load_suite
from gryph.client.spark.compile.relations import compile_relation
from gryph.compiler.lowering import Options
from gryph.compiler.lowering.row_failures import Split

SUITE = """
source users = parquet("{users}")
source copy = parquet("{copy}")
completeness contact on users: email
uniqueness ids on users: id
accuracy same on users, copy: users.id = copy.id and users.email = copy.email
"""
THRESHOLD = "spark.sql.autoBroadcastJoinThreshold"


def _write(path, ids, emails):
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "email": pa.array(emails, pa.string())}), path)


def test_the_splits_joins_are_shuffled_not_broadcast(spark_engine, tmp_path):
    users, copy = tmp_path / "users.parquet", tmp_path / "copy.parquet"
    _write(users, [1, 2, 2, 3], ["a", None, "b", "c"])
    _write(copy, [1, 2], ["a", "b"])
    suite = load_suite(SUITE.format(users=users, copy=copy))
    split = Split("users", str(tmp_path / "q"), str(tmp_path / "v"), ("s", "run", None, "spark"))
    compiled = compile_for(suite, spark_engine, Options(record_sample=0, splits=(split,)))
    spark = spark_engine.spark
    before = spark.conf.get(THRESHOLD)
    spark.conf.set(THRESHOLD, str(10 * 2**20))  # Spark's default: these few rows would be broadcast
    try:
        with spark_engine._registered(
            compiled.plan.views, [e.relation for e in compiled.plan.exports], suite.sources
        ) as ctx:
            (view,) = compiled.plan.views
            joined = _physical(compile_relation(view.relation, ctx))
            exports = {e.name: _physical(compile_relation(e.relation, ctx)) for e in compiled.plan.exports}
    finally:
        spark.conf.set(THRESHOLD, before)
    # the accuracy rule's anti join with the target, the misses' and the counts' left joins
    assert joined.count("SortMergeJoin") == 3, joined
    assert "Broadcast" not in joined, joined
    assert sorted(exports) == ["users__quarantine", "users__valid"]
    for plan in exports.values():  # both read the kept view's copy, computed once: no join again
        assert "Join" not in plan and "Scan parquet" not in plan, plan


def _physical(df) -> str:
    return df._explain_string(mode="formatted").split("\n\n")[0]
