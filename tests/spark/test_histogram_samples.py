"""Samples of duplicated values taken by the aggregate of the histogram that counts them, so
that Spark groups the rows once for both (histogram_samples.py; Spark 4.2+), or, on an older
server, kept as queries ordered by their columns: the same smallest rows either way."""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client.run.runner import load_suite
from gryph.client.run.runner import run as run_on
from gryph.client.spark.rewrites import histogram_samples
from gryph.client.spark.rewrites.histogram_samples import SampledHistogram, TakenSample, take_samples
from gryph.client.spark.session.connect import major_minor
from gryph.compiler.plan import (
    Call,
    Field,
    Filter,
    Fn,
    Limit,
    Literal,
    Named,
    Project,
    Query,
    Read,
    Sort,
    SortKey,
    format_relation,
    grouped_counts,
    key_histogram,
)
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, STRING, map_of, schema

NAME, VALUE = "名 前", "a.b"  # a space, a dot, unicode: every name is quoted
TABLE = {
    # counts: z 4, a 3, b c é 2, d and NULL once; 'é' sorts after 'z'
    NAME: pa.array([*"zzzzaaabbcc", "é", "é", "d", None], pa.string()),
    # counts: NaN 3, 1.0 and NULL 2, 2.0 ... 9.0 once
    VALUE: pa.array([1.0, 1.0, math.nan, math.nan, math.nan, None, None] + [float(i) for i in range(2, 10)]),
    "id": pa.array(range(15), pa.int64()),
}
SUITE = """
source t = parquet("{t}")
source empty = parquet("{empty}")
uniqueness names on t: `名 前`
distinctness values on t: `a.b` with duplication.array = "dup"
uniqueness ids on t: id
distinctness nothing on empty: `名 前`
"""


def _run(engine, tmp_path, sample: int):
    t, empty = tmp_path / "t.parquet", tmp_path / "empty.parquet"
    pq.write_table(pa.table(TABLE), t)
    pq.write_table(pa.table(TABLE).slice(0, 0), empty)
    return run_on(load_suite(SUITE.format(t=t, empty=empty)), engine, record_sample=sample)


def _key(row: dict) -> tuple:
    return tuple((name, repr(value)) for name, value in sorted(row.items()))


@pytest.fixture(params=["small", "large"])
def spark_run(request, spark_engine, tmp_path, monkeypatch):
    """Runs the suite on Spark as a small run (one partition) or a large one (shuffles), and
    records the histograms that took samples."""
    import gryph.client.spark.rewrites.passes as passes
    import gryph.client.spark.rewrites.small_sources as small_runs

    if request.param == "large":
        monkeypatch.setattr(small_runs, "SMALL_SOURCE_BYTES", 0)
    taken: list[SampledHistogram] = []

    def spy(queries, version):
        out = take_samples(queries, version)
        taken.extend(q.relation for q in out if isinstance(q.relation, SampledHistogram))
        return out

    monkeypatch.setattr(passes, "take_samples", spy)
    return lambda sample: (_run(spark_engine, tmp_path, sample), taken, spark_engine.connection.server_version)


def test_the_histogram_takes_the_smallest_duplicated_values(spark_run):
    result, taken, version = spark_run(3)
    # each of the four rules' histograms took its rule's sample in its aggregate (Spark 4.2+;
    # the pinned 4.1 server orders each sample instead, and shows the same rows)
    assert [len(h.samples) for h in taken] == ([1, 1, 1, 1] if major_minor(version) >= (4, 2) else [])
    names = result.records["names"]
    # by hand: z a b c é are duplicated; the three smallest are a (3 rows), b and c (2 each):
    # two groups of counts meet in the sample
    assert names["count"] == 5
    assert names["sample"] == [{NAME: "a", "dup": 2}, {NAME: "b", "dup": 1}, {NAME: "c", "dup": 1}]
    assert result.metrics["names"] == {"total": 15, "unique": 2}
    values = result.records["values"]
    assert values["count"] == 3  # NaN, 1.0 and NULL: all of them fit in the sample
    expected = [{VALUE: math.nan, "dup": 2}, {VALUE: 1.0, "dup": 1}, {VALUE: None, "dup": 1}]
    assert sorted(map(_key, values["sample"])) == sorted(map(_key, expected))
    assert result.metrics["values"]["distinct"] == 11
    assert result.metrics["values"]["dup"] == [{"dup": 1, "num": 2}, {"dup": 2, "num": 1}]
    # no duplicates, no rows: empty samples
    assert result.records["ids"]["sample"] == [] and result.metrics["ids"]["unique"] == 15
    assert result.records["nothing"]["sample"] == [] and result.metrics["nothing"]["distinct"] == 0


def test_a_sample_as_large_as_the_duplicates_holds_them_all(spark_run, tmp_path):
    from gryph.local_backend.engine import DuckDBEngine

    result, _, _ = spark_run(20)
    expected = [{NAME: v, "dup": d} for v, d in (("z", 3), ("a", 2), ("b", 1), ("c", 1), ("é", 1))]
    assert sorted(map(_key, result.records["names"]["sample"])) == sorted(map(_key, expected))
    # the same rows and metrics as DuckDB's, which runs the sample as a query of its own
    local = _run(DuckDBEngine(), tmp_path, 20)
    assert result.metrics == local.metrics
    for rule in ("names", "values", "ids", "nothing"):
        got, want = result.records[rule]["sample"], local.records[rule]["sample"]
        assert sorted(map(_key, got)) == sorted(map(_key, want)), rule


# the plan a uniqueness rule's histogram and sample make (lowering/duplicates.py), by hand
T = Read("t", schema(("k", STRING), ("m", map_of(STRING, INTEGER))))
COUNTED = grouped_counts(T, (Named(Field("k", STRING), "__key0"),))
N = Field("__count", INTEGER)
DUPLICATED = Call(Fn.GT, (N, Literal(1, INTEGER)), BOOLEAN)
ROWS = (Named(Field("__key0", STRING), "k"), Named(Call(Fn.SUBTRACT, (N, Literal(1, INTEGER)), INTEGER), "dup"))
HISTOGRAM = Query("h", key_histogram(COUNTED))
BY_MAP = grouped_counts(T, (Named(Field("m", map_of(STRING, INTEGER)), "__key0"),))


def _sample(name: str, limit: int, counted=COUNTED) -> Query:
    return Query(name, Limit(Project(Filter(counted, DUPLICATED), ROWS), limit))


def test_a_histograms_samples_join_its_query():
    other = Query("total", Limit(T, 5))  # a sample of the source, not of the counted rows
    out = take_samples([HISTOGRAM, _sample("s1", 20), other, _sample("s2", 3)], "4.3.0")
    assert [q.name for q in out] == ["h", "total"] and out[1] == other
    rel = out[0].relation
    assert rel == SampledHistogram(
        COUNTED, "h", (TakenSample("s1", DUPLICATED, ROWS, 20), TakenSample("s2", DUPLICATED, ROWS, 3))
    )
    assert format_relation(rel).splitlines()[0] == "Histogram of counts with samples 's1', 's2'"


def test_filters_and_projections_are_read_through_to_the_counted_rows():
    # a projection renames the count, a filter above it reads the new name
    renamed = Project(COUNTED, (Named(Field("__key0", STRING), "v"), Named(N, "c")))
    high = Filter(renamed, Call(Fn.GT, (Field("c", INTEGER), Literal(2, INTEGER)), BOOLEAN))
    (query,) = take_samples([HISTOGRAM, Query("s", Limit(high, 4))], "4.2.0")
    (sample,) = query.relation.samples
    assert sample.condition == Call(Fn.GT, (N, Literal(2, INTEGER)), BOOLEAN)
    assert sample.columns == (Named(Field("__key0", STRING), "v"), Named(N, "c"))


@pytest.mark.parametrize(
    "queries, version",
    [
        ([HISTOGRAM, _sample("s", histogram_samples.MOST_ROWS + 1)], "4.3.0"),  # more than min_by takes
        ([HISTOGRAM, _sample("s", 0)], "4.3.0"),
        ([_sample("s", 20)], "4.3.0"),  # no histogram of the same counted rows
        # a map column cannot be ordered
        ([Query("h", key_histogram(BY_MAP)), Query("s", Limit(BY_MAP, 20))], "4.3.0"),
    ],
)
def test_a_sample_the_histogram_cannot_take_stays_a_query(queries, version):
    assert take_samples(queries, version) == queries
    assert take_samples(queries, "4.1.1") == queries  # nor is it ordered on an older server


def test_an_older_server_orders_the_sample_by_its_columns():
    """Spark 4.1 has no min_by with a k: the sample stays a query, its rows ordered by k then
    dup (ascending, NULL first), so its limit keeps the rows the histogram would take."""
    other = Query("total", Limit(T, 5))
    out = take_samples([HISTOGRAM, _sample("s", 20), other], "4.1.1")
    inner = Project(Filter(COUNTED, DUPLICATED), ROWS)
    keys = (SortKey(Field("k", STRING)), SortKey(Field("dup", INTEGER)))
    assert out == [HISTOGRAM, Query("s", Limit(Sort(inner, keys), 20)), other]
