"""Iceberg quarantine and valid tables written by Spark's Iceberg runtime on the server the tests
start, as a user runs gryph: the cluster commits each table (nothing staged on the client), into
the same SQLite catalog PyIceberg reads. Read back with PyIceberg and with Spark: the bad rows with
their reasons, once per data time; a rerun adds one snapshot and changes no row; a run killed
before the cluster's commit leaves the old rows, one killed after it the new, never both."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import pytest

from tests.support.gryph_cli import gryph

pytestmark = pytest.mark.spark

C = ("orders_complete", "completeness orders_complete on orders: customer", "a selected value is missing")
U = ("orders_ids", "uniqueness orders_ids on orders: id", "its key occurs more than once")
V = ("orders_valid", "non_negative", "the condition does not hold")
SUITE = """suite shop
source orders = csv("orders.csv", header = true, schema = "id bigint, customer string, amount double")
completeness orders_complete on orders: customer
uniqueness orders_ids on orders: id
validity orders_valid on orders: amount >= 0 as non_negative
"""
FIRST = "id,customer,amount\n1,ann,10.5\n2,,3.0\n3,cy,-1\n3,dée,NaN\n5,émile,\n6,zoë,0\n"
# by hand: 2 has no customer; 3 occurs twice, and -1 is negative; NaN >= 0 holds (NaN is above
# every number); a NULL amount fails the condition
FIRST_BAD = [
    (2, None, 3.0, [C]),
    (3, "cy", -1.0, [U, V]),
    (3, "dée", "NaN", [U]),
    (5, "émile", None, [V]),
]
FIRST_GOOD = [(1, "ann", 10.5), (6, "zoë", 0.0)]
SECOND = "id,customer,amount\n7,,1\n8,ann,2\n"
SECOND_BAD = [(7, None, 1.0, [C])]


def _outputs(folder: Path) -> str:
    catalog = f'catalog.uri = "sqlite:///{folder}/lake/catalog.db", catalog.warehouse = "file://{folder}/lake"'
    return (
        f'quarantine orders to iceberg("lake.dq.bad_orders", {catalog})\n'
        f'valid orders to iceberg("lake.dq.good_orders", {catalog})\n'
    )


def _write(folder: Path, orders: str) -> None:
    (folder / "lake").mkdir(exist_ok=True)
    (folder / "s.dq").write_text(SUITE + _outputs(folder), "utf-8")
    (folder / "orders.csv").write_text(orders, "utf-8")


def _run(folder: Path, remote: str, day: str, *extra: str, env: dict[str, str] | None = None):
    args = ("run", "s.dq", "--engine", "spark", "--remote", remote, "--data-time", day, "--format", "json")
    return gryph(*args, *(extra or ("--no-history",)), cwd=folder, env=env)


def _key(value):
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def _bad(rows: list[dict]) -> list[tuple]:
    found = [
        (_key(r["id"]), r["customer"], _key(r["amount"]), r["data_time"], [tuple(e.values()) for e in r["_dq_errors"]])
        for r in rows
    ]
    return sorted(found, key=repr)


def _good(rows: list[dict]) -> list[tuple]:
    return sorted(((r["id"], r["customer"], _key(r["amount"]), r["data_time"]) for r in rows), key=repr)


def _dated(rows: list[tuple], day: str) -> list[tuple]:
    return sorted(((*row[:3], day, *row[3:]) for row in rows), key=repr)


def _pyiceberg(folder: Path, name: str):
    from pyiceberg.catalog import load_catalog

    catalog = load_catalog("lake", uri=f"sqlite:///{folder}/lake/catalog.db", warehouse=f"file://{folder}/lake")
    return catalog.load_table(("dq", name))


def _read(folder: Path, name: str) -> tuple[list[dict], list[tuple[int, str]]]:
    """The table's rows and its snapshots (id, operation), oldest first, read with PyIceberg."""
    table = _pyiceberg(folder, name)
    snapshots = [(s.snapshot_id, s.summary.operation.value) for s in table.snapshots()]
    return table.scan().to_arrow().to_pylist(), snapshots


def _spark_rows(remote: str, folder: Path, name: str) -> list[dict]:
    """The table's rows as a Spark session of its own reads them through Iceberg's JDBC catalog."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(remote).create()
    try:
        prefix = "spark.sql.catalog.lake"
        spark.conf.set(prefix, "org.apache.iceberg.spark.SparkCatalog")
        spark.conf.set(f"{prefix}.type", "jdbc")
        spark.conf.set(f"{prefix}.uri", f"jdbc:sqlite:{folder}/lake/catalog.db")
        spark.conf.set(f"{prefix}.warehouse", f"file://{folder}/lake")
        return [row.asDict(recursive=True) for row in spark.table(f"lake.dq.{name}").collect()]
    finally:
        spark.stop()


def test_the_cluster_commits_each_data_times_rows_once_into_iceberg_tables(tmp_path, spark_remote):
    _write(tmp_path, FIRST)
    first = _run(tmp_path, spark_remote, "2026-11-24")
    assert first.returncode == 0, first.stderr
    assert not (tmp_path / ".gryph" / "outputs").exists()  # the cluster wrote the tables: nothing staged here
    bad, bad_snapshots = _read(tmp_path, "bad_orders")
    good, good_snapshots = _read(tmp_path, "good_orders")
    assert _bad(bad) == _dated(FIRST_BAD, "2026-11-24")
    assert _good(good) == _dated(FIRST_GOOD, "2026-11-24")
    assert {(r["_dq_run"]["engine"], r["_dq_run"]["data_time"]) for r in bad} == {("spark", "2026-11-24")}
    assert _bad(_spark_rows(spark_remote, tmp_path, "bad_orders")) == _bad(bad)
    assert _good(_spark_rows(spark_remote, tmp_path, "good_orders")) == _good(good)
    # a new table is partitioned by the data time, as PyIceberg's writer makes it on DuckDB
    spec = _pyiceberg(tmp_path, "bad_orders").spec()
    assert [(f.name, str(f.transform)) for f in spec.fields] == [("data_time", "identity")]
    outputs = json.loads(first.stdout)["outputs"]["orders"]
    assert outputs["quarantine"] == {
        "path": 'iceberg("lake.dq.bad_orders")',
        "rows": 4,
        "format": "iceberg",
        "snapshot": bad_snapshots[-1][0],
    }
    assert outputs["valid"]["snapshot"] == good_snapshots[-1][0] and outputs["valid"]["rows"] == 2

    again = _run(tmp_path, spark_remote, "2026-11-24", "--history", "h.duckdb")  # the same data time again
    assert again.returncode == 0, again.stderr
    bad_again, snapshots_again = _read(tmp_path, "bad_orders")
    assert _bad(bad_again) == _bad(bad)  # the same rows, in one new snapshot that replaced them
    assert snapshots_again[:-1] == bad_snapshots and snapshots_again[-1][1] == "overwrite"
    assert _good(_read(tmp_path, "good_orders")[0]) == _good(good)
    with duckdb.connect(str(tmp_path / "h.duckdb"), read_only=True) as con:
        (document,) = con.execute("SELECT document FROM runs").fetchone()  # type: ignore[misc]
    assert json.loads(document)["outputs"]["orders"]["quarantine"]["snapshot"] == snapshots_again[-1][0]

    _write(tmp_path, SECOND)
    assert _run(tmp_path, spark_remote, "2026-11-25").returncode == 0  # another data time: added beside
    assert _bad(_read(tmp_path, "bad_orders")[0]) == sorted(
        _dated(FIRST_BAD, "2026-11-24") + _dated(SECOND_BAD, "2026-11-25"), key=repr
    )


@pytest.mark.parametrize("point", ["engine_commit", "staged"])
def test_a_run_killed_around_the_clusters_commit_leaves_old_rows_or_new(point, tmp_path, spark_remote):
    """Killed before the cluster's commit: the old rows; after it (before the client's own
    steps): the new. Never both, and the next run of the data time holds its rows once."""
    _write(tmp_path, FIRST)
    assert _run(tmp_path, spark_remote, "2026-11-24").returncode == 0
    old = _bad(_read(tmp_path, "bad_orders")[0])
    _write(tmp_path, SECOND)
    killed = _run(tmp_path, spark_remote, "2026-11-24", env={"GRYPH_QUARANTINE_CRASH_AT": point})
    assert killed.returncode == -9, killed.stderr
    new = _dated(SECOND_BAD, "2026-11-24")
    assert _bad(_read(tmp_path, "bad_orders")[0]) == (old if point == "engine_commit" else new)
    assert _run(tmp_path, spark_remote, "2026-11-24").returncode == 0
    assert _bad(_read(tmp_path, "bad_orders")[0]) == new
    assert _good(_read(tmp_path, "good_orders")[0]) == [(8, "ann", 2.0, "2026-11-24")]


def test_duckdb_and_spark_write_the_same_rows_into_one_table(tmp_path, spark_remote):
    """The DuckDB run (PyIceberg commits) and the Spark run (the cluster commits) of one data
    time, into the same tables in turn: each leaves the same rows, with the same reasons."""
    _write(tmp_path, FIRST)
    by_engine = {}
    for engine in ("duckdb", "spark"):
        args = ("run", "s.dq", "--engine", engine, "--no-history", "--data-time", "2026-11-24")
        done = gryph(*args, *(("--remote", spark_remote) if engine == "spark" else ()), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        bad, good = _read(tmp_path, "bad_orders")[0], _read(tmp_path, "good_orders")[0]
        assert {r["_dq_run"]["engine"] for r in bad} == {engine}
        by_engine[engine] = (_bad(bad), _good(good))
    assert (
        by_engine["duckdb"] == by_engine["spark"] == (_dated(FIRST_BAD, "2026-11-24"), _dated(FIRST_GOOD, "2026-11-24"))
    )


def test_an_iceberg_table_of_another_shape_is_refused_and_keeps_its_rows(tmp_path, spark_remote):
    import pyarrow as pa
    from pyiceberg.catalog import load_catalog

    _write(tmp_path, FIRST)
    catalog = load_catalog("lake", uri=f"sqlite:///{tmp_path}/lake/catalog.db", warehouse=f"file://{tmp_path}/lake")
    catalog.create_namespace("dq")
    catalog.create_table(("dq", "bad_orders"), schema=pa.schema([("x", pa.int64())])).append(pa.table({"x": [7]}))
    before = _read(tmp_path, "bad_orders")
    (tmp_path / "orders.csv").unlink()  # a scan would say the file is missing: the table is found first
    done = _run(tmp_path, spark_remote, "2026-11-24")
    assert done.returncode == 2, done.stderr
    assert "s.dq:6:1: error QUARANTINE_TARGET: quarantine table iceberg(" in done.stderr
    assert "has columns the run does not write: 'x'" in done.stderr and "SOURCE_NOT_FOUND" not in done.stderr
    assert _read(tmp_path, "bad_orders") == before == ([{"x": 7}], before[1])


def test_an_iceberg_quarantine_beside_a_parquet_valid_folder(tmp_path, spark_remote):
    """The cluster commits the quarantine table and writes the valid folder, which the client
    swaps in (its journal kept where the quarantine's stage would be, a folder made for it)."""
    import pyarrow.dataset as ds

    _write(tmp_path, FIRST)
    quarantine_only = _outputs(tmp_path).splitlines()[0]
    (tmp_path / "s.dq").write_text(f'{SUITE}{quarantine_only}\nvalid orders to "out/good"\n', "utf-8")
    done = _run(tmp_path, spark_remote, "2026-11-24")
    assert done.returncode == 0, done.stderr
    assert _bad(_read(tmp_path, "bad_orders")[0]) == _dated(FIRST_BAD, "2026-11-24")
    good = ds.dataset(str(tmp_path / "out" / "good" / "data_time=2026-11-24"), format="parquet").to_table()
    assert sorted(((r["id"], r["customer"], r["amount"]) for r in good.to_pylist()), key=repr) == FIRST_GOOD
