"""Delta Lake and Iceberg sources on both engines: tables written by the same libraries users
write them with (deltalake's write_deltalake, pyiceberg with a SQL catalog in a temporary folder),
read at a version, a timestamp or a snapshot; the columns and filters DuckDB's readers are asked
for; and every way they go wrong, located at the source's line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from pyiceberg.catalog.sql import SqlCatalog

from gryph.client import run
from gryph.client.spark import SparkEngine
from gryph.client.spark.session.local_server import start_local_server
from gryph.client.spark.sources.lake_sources import _spark_catalog_properties, not_enabled
from gryph.compiler.errors import EngineError, InvalidInput
from gryph.compiler.sources.source_specs import SourceSpec

# two commits: (1, 'a', 1.5), (2, NULL, NaN); then (NULL, 'c', NULL), (4, 'é', 3.0)
FIRST = pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", None], "x": [1.5, float("nan")]})
SECOND = pa.table({"id": pa.array([None, 4], pa.int64()), "name": ["c", "é"], "x": [None, 3.0]})


@pytest.fixture(scope="module")
def delta_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("lake") / "orders"
    write_deltalake(str(path), FIRST)
    write_deltalake(str(path), SECOND, mode="append")
    return path


@pytest.fixture(scope="module")
def iceberg_catalog(tmp_path_factory):
    """The table lake.shop.orders in a SQLite catalog; its two snapshots, first one first."""
    folder = tmp_path_factory.mktemp("iceberg")
    uri = f"sqlite:///{folder}/catalog.db"
    catalog = SqlCatalog("lake", uri=uri, warehouse=f"file://{folder}")
    catalog.create_namespace("shop")
    table = catalog.create_table("shop.orders", schema=FIRST.schema)
    table.append(FIRST)
    table.append(SECOND)
    snapshots = [s.snapshot_id for s in table.snapshots()]
    return {"uri": uri, "folder": folder, "location": table.location().removeprefix("file://"), "snapshots": snapshots}


def _iceberg(catalog, extra: str = "") -> str:
    return f'iceberg("lake.shop.orders", catalog.uri = "{catalog["uri"]}"{extra})'


@pytest.fixture(params=("duckdb", "spark"))
def engine(request):
    if request.param == "duckdb":
        return {"engine": "duckdb"}
    return {"engine": "spark", "remote": request.getfixturevalue("spark_remote")}


def _log_file(table, version: int):
    return table / "_delta_log" / f"{version:020d}.json"


def _utc_millis(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def test_delta_at_its_last_version_a_version_and_a_timestamp(delta_table, engine):
    """Last version: 4 rows, id NULL once. Version 0 and the moment of its commit (its log file's
    modification time: the moment Delta on Spark gives a commit): the first 2 rows, none NULL."""
    moment = _utc_millis(_log_file(delta_table, 0).stat().st_mtime_ns // 1_000_000)
    suite = f'''source last = delta("{delta_table}")
source v0 = delta("{delta_table}", version = 0)
source then = delta("{delta_table}", timestamp = "{moment}")
completeness c on last: id
completeness c0 on v0: id
completeness ct on then: id
'''
    metrics = run(suite, **engine).metrics
    assert metrics["c"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert metrics["c0"] == metrics["ct"] == {"total": 2, "incomplete": 0, "complete": 2}


def test_a_delta_timestamp_picks_the_same_version_on_both_engines(tmp_path, engine):
    """A commit's moment is its log file's modification time on both engines, not the moment its
    writer recorded in it (earlier: taken before the file was written). Here the writer's record
    says t, the files say t + 5 s (version 0) and t + 10 s (version 1), by hand with utime: at
    t + 1 s there is no version yet, at t + 7 s version 0 (2 rows), at t + 10 s version 1 (4)."""
    table = tmp_path / "orders"
    write_deltalake(str(table), FIRST)
    write_deltalake(str(table), SECOND, mode="append")
    recorded = min(entry["timestamp"] for entry in DeltaTable(str(table)).history())
    for version, later in ((0, 5_000), (1, 10_000)):
        nanos = (recorded + later) * 1_000_000  # exact: a float of seconds may land a microsecond early
        os.utime(_log_file(table, version), ns=(nanos, nanos))

    def rows_at(after: int) -> int:
        suite = f'source o = delta("{table}", timestamp = "{_utc_millis(recorded + after)}")\nmeasure "n": select count(*) from o\n'
        return run(suite, **engine).measures["n"]

    with pytest.raises(InvalidInput) as caught:
        rows_at(1_000)
    assert caught.value.code == "LAKE_VERSION_NOT_FOUND"
    assert (rows_at(7_000), rows_at(10_000)) == (2, 4)


def test_delta_filters_keep_nan_as_the_largest_number(delta_table, engine):
    """x > 2 keeps NaN (id 2) and 3.0 (id 4) on both engines, though DuckDB pushes the filter
    into the Delta dataset; id > 1 keeps ids 2 and 4, 'é' once."""
    suite = f'''source o = delta("{delta_table}")
profiling big: select count(*) as n, min(id) as low from o where x > 2
profiling late: select count(*) as n, max(name) as top from o where id > 1
'''
    metrics = run(suite, **engine).metrics
    assert metrics["big"] == [{"n": 2, "low": 2}]
    assert metrics["late"] == [{"n": 2, "top": "é"}]


def test_iceberg_through_its_catalog_and_its_folder_at_a_snapshot(iceberg_catalog, engine):
    """The catalog's table: 4 rows, id NULL once; its folder (its newest metadata file: the
    second append's; also as the file: URL Iceberg gives as its location) and the folder at the
    first snapshot: 4 and 2 rows."""
    first = iceberg_catalog["snapshots"][0]
    suite = f'''source o = {_iceberg(iceberg_catalog)}
source f = iceberg("{iceberg_catalog["location"]}", snapshot = {first})
source folder = iceberg("{iceberg_catalog["location"]}")
source url = iceberg("file://{iceberg_catalog["location"]}")
completeness c on o: id
completeness cf on f: id
completeness cfolder on folder: id
completeness curl on url: id
profiling big on o: select count(*) as n, min(id) as low from o where x > 2
profiling named on o: select count(*) as n from o where id > 1 and name = 'é'
'''
    metrics = run(suite, **engine).metrics
    assert metrics["c"] == metrics["cfolder"] == metrics["curl"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert metrics["cf"] == {"total": 2, "incomplete": 0, "complete": 2}
    assert metrics["big"] == [{"n": 2, "low": 2}]  # NaN > 2: doubles are not pushed to Iceberg
    assert metrics["named"] == [{"n": 1}]


def test_iceberg_scans_only_the_plans_columns_and_filters(iceberg_catalog, monkeypatch):
    """The scan DuckDB asks pyiceberg for: the one column the rule reads, and its filter."""
    from pyiceberg.table import Table

    asked = []
    scan = Table.scan

    def recorded(self, *args, **kwargs):
        asked.append(kwargs)
        return scan(self, *args, **kwargs)

    monkeypatch.setattr(Table, "scan", recorded)
    suite = f"""source o = {_iceberg(iceberg_catalog)}
profiling p on o: select name, count(*) as n from o where id >= 2 group by name order by name
"""
    # ids 2 (name NULL) and 4 ('é')
    assert run(suite, "duckdb").metrics["p"] == [{"name": None, "n": 1}, {"name": "é", "n": 1}]
    [kwargs] = asked
    assert kwargs["selected_fields"] == ("id", "name")
    assert str(kwargs["row_filter"]) == "GreaterThanOrEqual(term=Reference(name='id'), literal=LongLiteral(2))"


def test_a_spark_server_of_no_iceberg_runtime_says_where_to_read(iceberg_catalog):
    """A Spark whose minor version Iceberg publishes no runtime for (4.2): the error says so."""
    spec = SourceSpec("o", "iceberg", paths=(str(iceberg_catalog["location"]),))
    error = not_enabled(spec, "4.2.0")
    assert error.code == "LAKE_NOT_ENABLED" and "--engine duckdb" in str(error)
    assert "iceberg-spark-runtime-4.2_2.13" in error.hint


def _located(suite: str, engine: dict, code: str, line: int) -> InvalidInput | EngineError:
    with pytest.raises((InvalidInput, EngineError)) as info:
        run(suite, **engine)
    assert info.value.code == code and info.value.location.line == line, info.value
    return info.value


def test_a_folder_that_is_no_delta_table(tmp_path, engine):
    error = _located(f'source o = delta("{tmp_path}")\ncompleteness c on o: id\n', engine, "LAKE_TABLE_NOT_FOUND", 1)
    assert f"{tmp_path} is not a Delta table" in error.message


def test_a_delta_version_or_time_the_table_does_not_have(delta_table, engine):
    """Version 9 of a table of versions 0 and 1; a time before its first commit and after its last."""
    for asked in ("version = 9", 'timestamp = "2001-01-01"', 'timestamp = "2999-01-01 00:00:00"'):
        suite = f'suite s\nsource o = delta("{delta_table}", {asked})\ncompleteness c on o: id\n'
        _located(suite, engine, "LAKE_VERSION_NOT_FOUND", 2)


def test_an_iceberg_snapshot_or_table_that_does_not_exist(iceberg_catalog, engine, tmp_path):
    """Snapshot 5 of the catalog's table and of its folder; a table the catalog lacks; a folder
    that holds no Iceberg table."""
    for source in (
        _iceberg(iceberg_catalog, ", snapshot = 5"),
        f'iceberg("{iceberg_catalog["location"]}", snapshot = 5)',
    ):
        error = _located(f"source o = {source}\ncompleteness c on o: id\n", engine, "LAKE_VERSION_NOT_FOUND", 1)
        first, second = iceberg_catalog["snapshots"]
        assert f"snapshot 5 does not exist: the table's snapshots are {first}, {second}" in str(error)
    missing = (
        f'source o = iceberg("lake.shop.nope", catalog.uri = "{iceberg_catalog["uri"]}")\ncompleteness c on o: id\n'
    )
    _located(missing, engine, "LAKE_TABLE_NOT_FOUND", 1)
    (tmp_path / "metadata").mkdir()
    _located(f'source o = iceberg("{tmp_path}")\ncompleteness c on o: id\n', engine, "LAKE_TABLE_NOT_FOUND", 1)


def test_bad_options_are_refused_before_anything_is_read(tmp_path):
    for source, text in (
        ('delta("t", versio = 1)', "versio"),
        ('delta("t", version = 1, timestamp = "2024-01-01")', "not both"),
        ('delta("t", version = 1.5)', "whole number"),
        ('delta("t", timestamp = "yesterday")', "yesterday"),
        ('iceberg("orders")', "catalog.namespace.table"),
        ('iceberg("a.b.c", snapshot = "x")', "whole number"),
    ):
        with pytest.raises(InvalidInput, match=text) as info:
            run(f"source o = {source}\ncompleteness c on o: id\n", "duckdb")
        assert info.value.code == "BAD_SOURCE" and info.value.location.line == 1


def _cli(tmp_path, suite: str, env: dict | None = None) -> subprocess.CompletedProcess:
    path = tmp_path / "suite.dq"
    path.write_text(suite, encoding="utf-8")
    command = [sys.executable, "-m", "gryph.client.cli.main", "validate", str(path)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_a_catalog_that_cannot_be_opened_fails_the_run(tmp_path):
    """A SQLite catalog in a folder that does not exist: exit 3, naming the catalog at the line."""
    suite = 'source o = iceberg("lake.shop.orders", catalog.uri = "sqlite:////no/such/folder/c.db")\ncompleteness c on o: id\n'
    done = _cli(tmp_path, suite)
    assert done.returncode == 3, done.stderr
    assert "CATALOG_UNREADABLE" in done.stderr and "suite.dq:1:" in done.stderr and "'lake'" in done.stderr


@pytest.mark.parametrize("module", ["deltalake", "pyiceberg"])
def test_a_missing_reader_names_the_extra_to_install(tmp_path, delta_table, iceberg_catalog, module):
    """A Python without the reader (a module of that name that fails to import, first on the path)."""
    blocked = tmp_path / "blocked"
    (blocked / module).mkdir(parents=True)
    (blocked / module / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = dict(os.environ, PYTHONPATH=str(blocked))
    source = f'delta("{delta_table}")' if module == "deltalake" else _iceberg(iceberg_catalog)
    done = _cli(tmp_path, f"source o = {source}\ncompleteness c on o: id\n", env)
    extra = "delta" if module == "deltalake" else "iceberg"
    assert done.returncode == 3, done.stderr
    assert "DRIVER_MISSING" in done.stderr and f"gryph[{extra}]" in done.stderr and "suite.dq:1:" in done.stderr


def test_a_spark_server_without_delta_or_iceberg_names_the_package_and_settings(delta_table, iceberg_catalog):
    """A server started without the connectors: Delta, an Iceberg catalog's table and an Iceberg
    folder each name the package built for the server's Spark (4.1) and the settings."""
    catalog = (("catalog.uri", iceberg_catalog["uri"]),)
    specs = (
        SourceSpec("d", "delta", paths=(str(delta_table),)),
        SourceSpec("c", "iceberg", paths=("lake.shop.orders",), options=catalog),
        SourceSpec("f", "iceberg", paths=(str(iceberg_catalog["location"]),)),
    )
    with start_local_server(connectors=False) as server, SparkEngine(server.url) as engine:
        errors = []
        for spec in specs:
            with pytest.raises(EngineError) as info:
                engine.schema_of(spec)
            errors.append(info.value)
    assert [error.code for error in errors] == ["LAKE_NOT_ENABLED"] * 3, [str(e) for e in errors]
    assert "io.delta:delta-spark_4.1_2.13:4.4.0" in errors[0].hint
    assert "spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension" in errors[0].hint
    for error in errors[1:]:
        assert "org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0" in error.hint
        assert "spark.sql.catalog.<catalog>=org.apache.iceberg.spark.SparkCatalog" in error.hint


def test_validate_reports_the_table_schema_without_a_scan(delta_table, tmp_path):
    """validate reads the schema from the log: a rule naming a column the table lacks is exit 2."""
    done = _cli(tmp_path, f'source o = delta("{delta_table}")\ncompleteness c on o: idd\n')
    assert done.returncode == 2
    assert "idd" in done.stderr and "'id'" in done.stderr


def _commit_ms(table_path, version: int) -> int:
    """The commit's own time, read from its log file (not through deltalake)."""
    log = (table_path / "_delta_log" / f"{version:020d}.json").read_text(encoding="utf-8")
    return next(json.loads(line)["commitInfo"]["timestamp"] for line in log.splitlines() if "commitInfo" in line)


def _shown(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, timezone.utc).isoformat(timespec="milliseconds")


def test_delta_rows_and_commit_time_come_from_the_log(delta_table, engine):
    """The accuracy target v0 is read only through the join, so the plan counts only 'last' (4
    rows); v0's 2 rows come from version 0's add actions. Each version's commit time is its
    commitInfo's, on both engines."""
    suite = f'''source last = delta("{delta_table}")
source v0 = delta("{delta_table}", version = 0)
accuracy a on last, v0: last.id = v0.id
'''
    document = run(suite, **engine).to_dict()
    assert document["metric"]["rowsCounter"] == {"last": 4, "v0": 2}
    assert document["table_logs"] == {
        "last": {"version": 1, "rows": 4, "committed": _shown(_commit_ms(delta_table, 1))},
        "v0": {"version": 0, "rows": 2, "committed": _shown(_commit_ms(delta_table, 0))},
    }


def test_delta_files_without_statistics_are_counted_by_their_footers(delta_table, tmp_path):
    """A writer that keeps no numRecords: the log's stats removed by hand, the 4 rows still known."""
    copy = tmp_path / "orders"
    shutil.copytree(delta_table, copy)
    for log in (copy / "_delta_log").glob("*.json"):
        lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        for line in lines:
            line.get("add", {}).pop("stats", None)
        log.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    suite = f'source s = delta("{copy}")\nsource t = delta("{copy}", version = 0)\naccuracy a on s, t: s.id = t.id\n'
    assert run(suite).to_dict()["metric"]["rowsCounter"] == {"s": 4, "t": 2}


def test_iceberg_rows_and_commit_time_come_from_the_snapshot_summary(iceberg_catalog, engine):
    """The first snapshot holds FIRST's 2 rows, the last both appends' 4; commit times are the
    snapshots' own (the folder's newest metadata file: the catalog's table as it is now)."""
    first, last = iceberg_catalog["snapshots"]
    table = SqlCatalog("lake", uri=iceberg_catalog["uri"]).load_table("shop.orders")
    times = {s.snapshot_id: s.timestamp_ms for s in table.snapshots()}
    suite = f"""source now = {_iceberg(iceberg_catalog)}
source then = {_iceberg(iceberg_catalog, f", snapshot = {first}")}
source folder = iceberg("{iceberg_catalog["location"]}")
accuracy a on now, then: now.id = then.id
accuracy b on now, folder: now.id = folder.id
"""
    document = run(suite, **engine).to_dict()
    assert document["metric"]["rowsCounter"] == {"now": 4, "then": 2, "folder": 4}
    assert document["table_logs"] == {
        "now": {"version": last, "rows": 4, "committed": _shown(times[last])},
        "then": {"version": first, "rows": 2, "committed": _shown(times[first])},
        "folder": {"version": last, "rows": 4, "committed": _shown(times[last])},
    }


def test_an_iceberg_table_never_written_has_no_rows_and_no_commit(tmp_path, engine):
    catalog = SqlCatalog("lake", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}")
    catalog.create_namespace("shop")
    catalog.create_table("shop.empty", schema=FIRST.schema)
    suite = (
        f'source e = iceberg("lake.shop.empty", catalog.uri = "sqlite:///{tmp_path}/c.db")\ncompleteness c on e: id\n'
    )
    document = run(suite, **engine).to_dict()
    assert document["metric"]["rowsCounter"] == {"e": 0}
    assert document["table_logs"] == {"e": {"version": None, "rows": 0, "committed": None}}


def test_pyicebergs_catalog_properties_as_icebergs_spark_catalog_takes_them():
    """SQLAlchemy URIs of a SQL catalog become JDBC ones (user and password apart, decoded), an HTTP URI a
    REST catalog's, PyIceberg's type sql Iceberg's jdbc; other properties pass as they are."""
    assert _spark_catalog_properties({"uri": "sqlite:////data/c.db", "warehouse": "file:///w"}) == {
        "uri": "jdbc:sqlite:/data/c.db",
        "type": "jdbc",
        "warehouse": "file:///w",
    }
    assert _spark_catalog_properties({"uri": "postgresql+psycopg2://ann:s3%40cret@db:5432/lake"}) == {
        "uri": "jdbc:postgresql://db:5432/lake",
        "type": "jdbc",
        "jdbc.user": "ann",
        "jdbc.password": "s3@cret",  # %40 decoded
    }
    assert _spark_catalog_properties({"uri": "https://cat.example/api"}) == {
        "uri": "https://cat.example/api",
        "type": "rest",
    }
    assert _spark_catalog_properties({"type": "sql", "uri": "jdbc:sqlite:/c.db"}) == {
        "type": "jdbc",
        "uri": "jdbc:sqlite:/c.db",
    }
