"""Parity: generated tables and rules give the same metrics on DuckDB and on Spark Connect.

Tables are seeded-random with NULLs, NaN, empty strings, duplicates and unicode; rules come from
a small grammar of templates over the generated columns. Never skipped: it uses spark_remote.
"""

from __future__ import annotations

import math
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gryph.client import run
from tests.support.comparison import same

STRINGS = ["a", "b", "", None, "ü", "李", "a ", "B"]
INTS = [-3, -1, 0, 1, 2, 2, 7, None]
FLOATS = [0.5, -1.25, math.nan, None, 2.0, 0.125]  # exact in binary: sums do not depend on order


def table(rng: random.Random, rows: int) -> pa.Table:
    pick = lambda values: [rng.choice(values) for _ in range(rows)]  # noqa: E731
    begin = [
        rng.choice([None, rng.randint(0, 10_000)]) if rng.random() < 0.15 else rng.randint(0, 10_000)
        for _ in range(rows)
    ]
    end = [None if rng.random() < 0.1 else (b or 0) + rng.randint(-2_000, 20_000) for b in begin]
    return pa.table(
        {
            "k": pa.array(pick(STRINGS), pa.string()),
            "n": pa.array(pick(INTS), pa.int64()),
            "x": pa.array(pick(FLOATS), pa.float64()),
            "first name": pa.array(pick(STRINGS), pa.string()),
            "b": pa.array(begin, pa.int64()),
            "e": pa.array(end, pa.int64()),
        }
    )


TEMPLATES = [
    "completeness c{i} on t: {col}",
    "completeness cc{i} on t: {col}, {col2}",
    'distinctness d{i} on t: {col} with duplication.array = "dup"',
    "uniqueness u{i} on t: {col}, {col2}",
    'uniqueness v{i} on t, u: {scol} with duplication.array = "dup"',
    "accuracy a{i} on t, u: t.{scol} = u.{scol} and t.n = u.n",
    "accuracy aa{i} on t, u: t.x = u.x",
    "timeliness l{i} on t: b, e with threshold = {ms}ms, step.size = {step}ms, percentile.values = (0.25, 0.5, 0.9)",
    "profiling p{i} on t: {col} as g, count(*) as cnt, count(distinct n) as dn, max(x) as mx, sum(n) as sn "
    "group by {col}",
    "profiling q{i} on t: count(*) as cnt, avg(x) as ax, min(n) as mn, max(n) - min(n) as spread, "
    "count(`first name`) as fn, sum(x) as sx where n > {v}",
    "profiling r{i} on t: k, count(*) as cnt group by k order by cnt desc, k limit 3",
]
COLUMNS = ["k", "n", "x", "`first name`"]
STRING_COLUMNS = ["k", "`first name`"]


def suite(rng: random.Random) -> tuple[str, set[str]]:
    rules, ordered = [], set()
    for i, template in enumerate(rng.sample(TEMPLATES, k=rng.randint(5, len(TEMPLATES)))):
        col, col2 = rng.sample(COLUMNS, 2)
        text = template.format(
            i=i,
            col=col,
            col2=col2,
            scol=rng.choice(STRING_COLUMNS),
            ms=rng.randint(0, 8_000),
            step=rng.choice([1, 1000, 2500]),
            v=rng.choice(INTS[:-1]),
        )
        rules.append(text)
        if "order by" in text:
            ordered.add(text.split()[1])
    return "\n".join(rules), ordered


@pytest.mark.parametrize("seed", range(8))
def test_duckdb_and_spark_agree(seed, duckdb_engine, spark_conformance_engine):
    rng = random.Random(seed)
    frames = {"t": table(rng, rng.choice([0, 1, 7, 40, 120])), "u": table(rng, rng.choice([0, 5, 60]))}
    text, ordered = suite(rng)
    _agree(text, ordered, run(text, duckdb_engine, frames=frames), run(text, spark_conformance_engine, frames=frames))


@pytest.mark.parametrize("seed", range(8, 12))
def test_duckdb_and_spark_agree_on_files(seed, duckdb_engine, spark_conformance_engine, tmp_path):
    """The same from parquet files, which Spark reads once per run (frames it does not copy)."""
    rng = random.Random(seed)
    header = []
    for name, rows in (("t", rng.choice([0, 1, 7, 40, 120])), ("u", rng.choice([0, 5, 60]))):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table(rng, rows), path)
        header.append(f'source {name} = parquet("{path}")')
    text, ordered = suite(rng)
    text = "\n".join(header) + "\n" + text
    _agree(text, ordered, run(text, duckdb_engine), run(text, spark_conformance_engine))


def _agree(text: str, ordered: set[str], local, remote) -> None:
    assert set(remote.metrics) == set(local.metrics)
    for rule, metrics in local.metrics.items():
        same(
            remote.metrics[rule],
            metrics,
            f"{rule} ({text.splitlines()[0][:30]}...)",
            ordered=rule in ordered or not isinstance(metrics, list),
        )
    for rule, record in local.records.items():
        assert remote.records[rule]["count"] == record["count"], rule
        assert len(remote.records[rule]["sample"]) == len(record["sample"]), rule
