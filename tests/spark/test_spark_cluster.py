"""One query on a standalone cluster: master, one worker, and a Connect server submitting to it."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.plan import AggFn, Aggregate, AggregateCall, Field, Named, count_all
from gryph.compiler.plan import data_types as G
from tests.support.plan_helpers import frame_source, read, run_one


@pytest.mark.cluster
def test_query_on_standalone_cluster():
    from gryph.client.spark import SparkEngine
    from gryph.client.spark.session.local_server import start_local_cluster

    with start_local_cluster() as cluster, SparkEngine(cluster.url) as engine:
        assert engine.spark.conf.get("spark.master") == cluster.master_url
        spec = frame_source("t", pa.table({"v": pa.array([*range(1000), None], pa.int64())}))
        rel = Aggregate(
            read(engine, spec),
            (),
            (Named(count_all(), "n"), Named(AggregateCall(AggFn.SUM, (Field("v", G.INTEGER),), G.INTEGER), "s")),
        )
        assert run_one(engine, rel, {"t": spec}) == [{"n": 1001, "s": 499500}]
