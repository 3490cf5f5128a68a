"""``gryph stream`` with quarantine and valid outputs: each batch's failing rows (and the others)
in a folder of the batch, ``batch=N``, swapped in before the batch commits, so that a stream
killed (SIGKILL) at any step and started again holds every input row exactly once, none twice and
none lost. Expected rows are derived by hand from the files written."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import duckdb
import pytest

from gryph.client.streaming.failpoints import POINTS
from gryph.client.streaming.stream_runner import stream
from tests.support.gryph_cli import gryph

from .kafka_topics import new_topic, produce, produce_in_transaction

SUITE = """suite landed
source landed = {source}
completeness named on landed: name
uniqueness ids on landed: id
{outputs}"""
FOLDER = (
    'folder("incoming/", format = "json", schema = "id bigint, name string", settle = "1ms", max_files_per_batch = 1)'
)
OUTPUTS = 'quarantine landed to "out/bad"\nvalid landed to "out/good"\n'


def _file_rows(number: int) -> list[dict]:
    """File ``number``'s rows: one good, one without a name, one key twice (both bad), a
    unicode name among them; in ids of their own per file (uniqueness judges each batch)."""
    base = 10 * number
    return [
        {"id": base + 1, "name": "ä"},
        {"id": base + 2, "name": None},
        {"id": base + 3, "name": "x"},
        {"id": base + 3, "name": "y"},
    ]


def _good(number: int) -> list[tuple]:
    return [(10 * number + 1, "ä")]


def _bad(number: int) -> list[tuple]:
    base = 10 * number
    return [(base + 2, None), (base + 3, "x"), (base + 3, "y")]


def _suite(folder: Path, files: int) -> None:
    (folder / "incoming").mkdir()
    (folder / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=OUTPUTS), "utf-8")
    for number in range(files):  # older first: files are read in order of arrival, one a batch
        path = folder / "incoming" / f"f{number}.json"
        path.write_text("".join(json.dumps(row) + "\n" for row in _file_rows(number)), "utf-8")
        moment = time.time() - 60 + number
        os.utime(path, (moment, moment))


def _rows(folder: Path, output: str) -> list[tuple]:
    """Every row of the output, with its batch, as a sorted multiset."""
    pattern = str(folder / "out" / output / "*" / "*.parquet")
    query = f"SELECT batch, id, name FROM read_parquet('{pattern}', hive_partitioning = true)"
    return sorted(duckdb.sql(query).fetchall(), key=repr)


def _by_batch(rows_of, batches: int = 3) -> list[tuple]:
    """Batch n reads file n - 1 (or messages 4n - 3 to 4n, file n - 1's rows)."""
    return sorted([(n + 1, *row) for n in range(batches) for row in rows_of(n)], key=repr)


def _stream(folder: Path, env: dict[str, str] | None = None):
    args = ("stream", "landed.dq", "--available-now", "--format", "json", "--state", "s.duckdb")
    return gryph(*args, "--history", "h.duckdb", cwd=folder, env=env)


def test_each_batch_writes_its_rows_to_a_folder_of_its_own(tmp_path):
    _suite(tmp_path, 3)
    done = _stream(tmp_path)
    assert done.returncode == 0, done.stderr
    documents = [json.loads(line) for line in done.stdout.splitlines()]
    assert [d["outputs"]["landed"]["quarantine"]["rows"] for d in documents] == [3, 3, 3]
    assert [d["outputs"]["landed"]["valid"]["path"] for d in documents] == [f"out/good/batch={n}" for n in (1, 2, 3)]
    assert _rows(tmp_path, "bad") == _by_batch(_bad)
    assert _rows(tmp_path, "good") == _by_batch(_good)
    pattern = str(tmp_path / "out" / "bad" / "batch=2" / "*.parquet")  # file 1's rows
    query = f"SELECT id, _dq_errors, _dq_run.suite FROM read_parquet('{pattern}') ORDER BY id, name"
    missing = {
        "rule": "named",
        "condition": "completeness named on landed: name",
        "message": "a selected value is missing",
    }
    twice = {"rule": "ids", "condition": "uniqueness ids on landed: id", "message": "its key occurs more than once"}
    assert duckdb.sql(query).fetchall() == [(12, [missing], "landed"), (13, [twice], "landed"), (13, [twice], "landed")]
    assert _stream(tmp_path).stdout == ""  # nothing new: no batch, no folder
    assert sorted(p.name for p in (tmp_path / "out" / "bad").iterdir()) == ["batch=1", "batch=2", "batch=3"]


# every point of a batch (the stream's, then the quarantine's own inside its swap)
KILLS = [("GRYPH_STREAM_CRASH_AT", p) for p in POINTS if p in ("intent", "computed", "committed", "history", "printed")]
KILLS += [("GRYPH_QUARANTINE_CRASH_AT", "staged"), ("GRYPH_QUARANTINE_CRASH_AT", "swapped")]


@pytest.mark.parametrize(("variable", "point"), KILLS, ids=[p for _, p in KILLS])
def test_a_stream_killed_at_each_point_holds_every_row_once(tmp_path, variable, point):
    _suite(tmp_path, 3)
    killed = _stream(tmp_path, env={variable: point})
    assert killed.returncode == -9, killed.stderr  # SIGKILL in batch 1
    resumed = _stream(tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert _rows(tmp_path, "bad") == _by_batch(_bad)  # none twice, none lost, each in its batch
    assert _rows(tmp_path, "good") == _by_batch(_good)
    stray = [p.name for p in (tmp_path / "out").rglob("*") if p.name.startswith(("_staging", "_swaps"))]
    assert stray == []
    history = json.loads(gryph("history", "landed", "--history", "h.duckdb", "--format", "json", cwd=tmp_path).stdout)
    assert len(history["runs"]) == 3  # each batch stored once


def test_quarantine_to_names_the_folder_of_every_batch(tmp_path):
    _suite(tmp_path, 1)
    (tmp_path / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=""), "utf-8")
    done = gryph("stream", "landed.dq", "--available-now", "--state", "s.duckdb", "--quarantine-to", "q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pattern = str(tmp_path / "q" / "landed" / "quarantine" / "batch=1" / "*.parquet")
    assert sorted(duckdb.sql(f"SELECT id, name FROM read_parquet('{pattern}')").fetchall(), key=repr) == sorted(
        _bad(0), key=repr
    )


def test_a_folder_it_cannot_write_is_refused_before_any_batch(tmp_path):
    _suite(tmp_path, 1)
    (tmp_path / "out").write_text("a file", "utf-8")
    done = _stream(tmp_path)
    assert done.returncode == 2
    assert "QUARANTINE_TARGET" in done.stderr and "is inside the file" in done.stderr
    assert not (tmp_path / "s.duckdb").exists()  # no batch began


def test_a_delta_table_of_other_columns_is_refused_before_the_first_batch_commits(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    (tmp_path / "incoming").mkdir()
    (tmp_path / "incoming" / "f0.json").write_text('{"id": 1, "name": null}\n', "utf-8")
    outputs = 'quarantine landed to delta("out/bad")\n'
    (tmp_path / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=outputs), "utf-8")
    # a table of another source: no 'name' (the stream adds its batch time column, __tmst, to the source's)
    other = {"id": [7], "label": ["x"], "_dq_errors": ["[]"], "_dq_run": ["{}"], "data_time": ["d"]}
    write_deltalake(str(tmp_path / "out" / "bad"), pa.table(other), partition_by=["data_time"])
    done = _stream(tmp_path)
    assert done.returncode == 2, done.stderr
    assert "QUARANTINE_TARGET: quarantine table" in done.stderr
    assert "has no column 'name', '__tmst'; has columns the run does not write: 'label'" in done.stderr
    assert "nothing was committed" in done.stderr
    assert DeltaTable(str(tmp_path / "out" / "bad")).version() == 0


def test_kafka_batches_write_each_message_once_across_a_kill(kafka, tmp_path):
    topic = new_topic(kafka.bootstrap)
    rows = _file_rows(0) + _file_rows(1)
    produce(kafka.bootstrap, topic, [(None, json.dumps(row).encode()) for row in rows])  # offsets 0-7
    aborted = [json.dumps({"id": 99, "name": None}).encode()]  # offset 8, its abort marker at 9: no row
    produce_in_transaction(kafka.bootstrap, topic, aborted, commit=False)
    source = (
        f'kafka("{kafka.bootstrap}", topic = "{topic}", format = "json", schema = "id bigint, name string", '
        "max_records_per_batch = 4)"
    )
    (tmp_path / "landed.dq").write_text(SUITE.format(source=source, outputs=OUTPUTS), "utf-8")
    killed = _stream(tmp_path, env={"GRYPH_QUARANTINE_CRASH_AT": "swapped"})
    assert killed.returncode == -9, killed.stderr
    resumed = _stream(tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert [json.loads(line)["stream"]["batch"] for line in resumed.stdout.splitlines()] == [1, 2]
    assert _rows(tmp_path, "bad") == _by_batch(_bad, 2)  # batch n: messages 4n - 3 to 4n, file n - 1's rows
    assert _rows(tmp_path, "good") == _by_batch(_good, 2)
    # the third batch read only the aborted message and its marker: skipped, its stage dropped
    assert sorted(p.name for p in (tmp_path / "out" / "bad").iterdir()) == ["batch=1", "batch=2"]
    assert sorted(p.name for p in (tmp_path / "out" / "good").iterdir()) == ["batch=1", "batch=2"]


def test_spark_writes_the_same_batch_folders(spark_remote, tmp_path):
    _suite(tmp_path, 2)
    results = list(
        stream(tmp_path / "landed.dq", "spark", remote=spark_remote, available_now=True, state=tmp_path / "s.duckdb")
    )
    assert [r.outputs["landed"]["quarantine"]["rows"] for r in results] == [3, 3]
    assert _rows(tmp_path, "bad") == _by_batch(_bad, 2)
    assert _rows(tmp_path, "good") == _by_batch(_good, 2)


def _iceberg_outputs(folder: Path) -> str:
    (folder / "lake").mkdir(exist_ok=True)
    catalog = f'catalog.uri = "sqlite:///{folder}/lake/c.db", catalog.warehouse = "file://{folder}/lake"'
    return (
        f'quarantine landed to iceberg("lake.dq.bad", {catalog})\nvalid landed to iceberg("lake.dq.good", {catalog})\n'
    )


def _table_rows(folder: Path, table: str) -> tuple[list[tuple], int]:
    """The Iceberg table's (id, name) rows as a sorted multiset, and how many data times they are of."""
    from pyiceberg.catalog import load_catalog

    catalog = load_catalog("lake", uri=f"sqlite:///{folder}/lake/c.db", warehouse=f"file://{folder}/lake")
    rows = catalog.load_table(("dq", table)).scan().to_arrow().to_pylist()
    return sorted(((r["id"], r["name"]) for r in rows), key=repr), len({r["data_time"] for r in rows})


TABLE_KILLS = [("GRYPH_STREAM_CRASH_AT", p) for p in ("intent", "computed", "committed", "history")]
TABLE_KILLS += [("GRYPH_QUARANTINE_CRASH_AT", "staged")]


@pytest.mark.parametrize(("variable", "point"), TABLE_KILLS, ids=[p for _, p in TABLE_KILLS])
def test_a_stream_commits_each_batch_into_iceberg_tables_once_across_a_kill(tmp_path, variable, point):
    """Each batch's rows are its data time's rows of the tables (the batch's time), replaced when a
    batch killed before its state's commit runs again: every row once. A stream used to write
    them as a parquet folder under .gryph/outputs instead, saying nothing."""
    _suite(tmp_path, 3)
    (tmp_path / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=_iceberg_outputs(tmp_path)), "utf-8")
    killed = _stream(tmp_path, env={variable: point})
    assert killed.returncode == -9, killed.stderr  # SIGKILL in batch 1
    resumed = _stream(tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    bad = sorted((row for n in range(3) for row in _bad(n)), key=repr)
    good = sorted((row for n in range(3) for row in _good(n)), key=repr)
    assert _table_rows(tmp_path, "bad") == (bad, 3)  # none twice, none lost, a data time per batch
    assert _table_rows(tmp_path, "good") == (good, 3)
    documents = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert all(d["outputs"]["landed"]["quarantine"]["path"] == 'iceberg("lake.dq.bad")' for d in documents)


def test_a_stream_commits_each_batch_into_postgres_tables(tmp_path, postgres):
    import adbc_driver_postgresql.dbapi as pg

    from tests.postgres_server import PASSWORD

    postgres.execute("drop schema if exists stream_dq cascade")
    url = postgres.url(password=False)
    outputs = "".join(
        f'{kind} landed to postgres("{url}", table = "stream_dq.{table}", password_env = "GRYPH_TEST_PG")\n'
        for kind, table in (("quarantine", "bad"), ("valid", "good"))
    )
    _suite(tmp_path, 2)
    (tmp_path / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=outputs), "utf-8")
    try:
        done = _stream(tmp_path, env={"GRYPH_TEST_PG": PASSWORD})
        assert done.returncode == 0, done.stderr
        with pg.connect(postgres.url()) as con, con.cursor() as cursor:
            tables = {}
            for table in ("bad", "good"):
                cursor.execute(f"select id, name, data_time from stream_dq.{table}")
                tables[table] = cursor.fetchall()
    finally:
        postgres.execute("drop schema if exists stream_dq cascade")
    for table, rows_of in (("bad", _bad), ("good", _good)):
        assert sorted(((i, n) for i, n, _ in tables[table]), key=repr) == sorted(
            (row for n in range(2) for row in rows_of(n)), key=repr
        )
        assert len({data_time for _, _, data_time in tables[table]}) == 2  # a data time per batch


def test_on_spark_the_cluster_commits_each_batch_into_iceberg_tables(spark_remote, tmp_path):
    _suite(tmp_path, 2)
    (tmp_path / "landed.dq").write_text(SUITE.format(source=FOLDER, outputs=_iceberg_outputs(tmp_path)), "utf-8")
    # a process of its own: its Spark session opens the catalog 'lake' at this test's place
    args = ("stream", "landed.dq", "--available-now", "--format", "json", "--state", "s.duckdb")
    done = gryph(*args, "--engine", "spark", "--remote", spark_remote, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _table_rows(tmp_path, "bad") == (sorted([*_bad(0), *_bad(1)], key=repr), 2)
    assert _table_rows(tmp_path, "good") == (sorted([*_good(0), *_good(1)], key=repr), 2)
    assert not (tmp_path / ".gryph" / "outputs").exists()  # committed by the cluster: nothing staged here
