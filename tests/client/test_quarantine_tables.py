"""Quarantine outputs that are tables, as a user runs them: an Iceberg table of a SQL catalog
(PyIceberg, SQLite catalog file) and PostgreSQL tables on the server the tests start. A rerun of a
data time replaces its rows in one commit and leaves other data times; a target that cannot be
written is refused before any scan; a table of another shape is left unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import adbc_driver_postgresql.dbapi as pg
import pytest

from tests.support.gryph_cli import gryph

HEAD = """suite shop
source orders = csv("orders.csv", header = true, schema = "id bigint, customer string")
completeness orders_complete on orders: customer
uniqueness orders_ids on orders: id
"""
FIRST = "id,customer\n1,ann\n2,\n3,cy\n3,dée\n"  # bad by hand: 2 (no customer), 3 twice (one in unicode)
SECOND = "id,customer\n1,ann\n2,bo\n4,\n"  # bad by hand: 4
PASSWORD_ENV = "GRYPH_TEST_OUTPUT_PASSWORD"


def _iceberg(folder: Path) -> str:
    (folder / "lake").mkdir(exist_ok=True)
    return (
        f'iceberg("lake.dq.bad_orders", catalog.uri = "sqlite:///{folder}/lake/catalog.db", '
        f'catalog.warehouse = "file://{folder}/lake")'
    )


def _catalog_rows(folder: Path) -> tuple[list[tuple], int]:
    """The table's (id, customer, data_time, rules) rows and its current snapshot, read with PyIceberg."""
    from pyiceberg.catalog import load_catalog

    catalog = load_catalog("lake", uri=f"sqlite:///{folder}/lake/catalog.db", warehouse=f"file://{folder}/lake")
    table = catalog.load_table(("dq", "bad_orders"))
    rows = [
        (r["id"], r["customer"], r["data_time"], [e["rule"] for e in r["_dq_errors"]])
        for r in table.scan().to_arrow().to_pylist()
    ]
    return sorted(rows, key=repr), table.current_snapshot().snapshot_id


def _snapshot_run(folder: Path) -> str:
    """The run id the table's current snapshot carries in its summary."""
    from pyiceberg.catalog import load_catalog

    catalog = load_catalog("lake", uri=f"sqlite:///{folder}/lake/catalog.db", warehouse=f"file://{folder}/lake")
    summary = catalog.load_table(("dq", "bad_orders")).current_snapshot().summary
    return summary["gryph.run_id"]


def _write(folder: Path, outputs: str, orders: str) -> None:
    (folder / "s.dq").write_text(HEAD + outputs, "utf-8")
    (folder / "orders.csv").write_text(orders, "utf-8")


def _run(folder: Path, day: str, *extra: str, env: dict[str, str] | None = None):
    return gryph("run", "s.dq", "--no-history", "--data-time", day, "--format", "json", *extra, cwd=folder, env=env)


def test_an_iceberg_table_holds_each_data_times_bad_rows_once(tmp_path):
    _write(tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n", FIRST)
    first = _run(tmp_path, "2026-11-24")
    assert first.returncode == 0, first.stderr
    day1 = [
        (2, None, "2026-11-24", ["orders_complete"]),
        (3, "cy", "2026-11-24", ["orders_ids"]),
        (3, "dée", "2026-11-24", ["orders_ids"]),
    ]
    rows, snapshot = _catalog_rows(tmp_path)
    assert rows == day1
    outputs = json.loads(first.stdout)["outputs"]["orders"]
    assert outputs["quarantine"] == {
        "path": 'iceberg("lake.dq.bad_orders")',
        "rows": 3,
        "format": "iceberg",
        "snapshot": snapshot,
    }
    assert _snapshot_run(tmp_path) == outputs["run_id"]  # the snapshot says which run's rows it holds
    assert _run(tmp_path, "2026-11-24").returncode == 0  # the same data time again: the same rows
    assert _catalog_rows(tmp_path)[0] == day1
    _write(tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n", SECOND)
    assert _run(tmp_path, "2026-11-25").returncode == 0  # another data time: added beside
    assert _catalog_rows(tmp_path)[0] == sorted([*day1, (4, None, "2026-11-25", ["orders_complete"])], key=repr)
    assert _run(tmp_path, "2026-11-24").returncode == 0  # the first data time's rows replaced
    assert _catalog_rows(tmp_path)[0] == [
        (4, None, "2026-11-24", ["orders_complete"]),
        (4, None, "2026-11-25", ["orders_complete"]),
    ]


def test_a_run_killed_before_the_commit_leaves_the_tables_old_snapshot(tmp_path):
    _write(tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n", FIRST)
    _run(tmp_path, "2026-11-24")
    before = _catalog_rows(tmp_path)
    _write(tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n", SECOND)
    killed = _run(tmp_path, "2026-11-24", env={"GRYPH_QUARANTINE_CRASH_AT": "staged"})
    assert killed.returncode == -9
    assert _catalog_rows(tmp_path) == before
    assert _run(tmp_path, "2026-11-24").returncode == 0  # the next run stages again and commits
    assert _catalog_rows(tmp_path)[0] == [(4, None, "2026-11-24", ["orders_complete"])]
    assert list((tmp_path / ".gryph" / "outputs" / "orders" / "quarantine").iterdir()) == []


def test_an_iceberg_output_names_a_catalogs_table(tmp_path):
    _write(tmp_path, 'quarantine orders to iceberg("bad_orders")\n', FIRST)
    done = _run(tmp_path, "2026-11-24")
    assert done.returncode == 2
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine table 'bad_orders' is not a catalog's table" in done.stderr


def _pg(server, kind: str, table: str) -> str:
    url = server.url(password=False)
    return f'{kind} orders to postgres("{url}", table = "{table}", password_env = "{PASSWORD_ENV}")\n'


def _postgres_outputs(server) -> str:
    return _pg(server, "quarantine", "dq.bad_orders") + _pg(server, "valid", "dq.good_orders")


def _pg_rows(server, sql: str) -> list[tuple]:
    with pg.connect(server.url()) as con, con.cursor() as cursor:
        cursor.execute(sql)
        return sorted(cursor.fetchall(), key=repr)


@pytest.fixture
def clean_postgres(postgres):
    postgres.execute("drop schema if exists dq cascade")
    yield postgres
    postgres.execute("drop schema if exists dq cascade")


def test_postgres_tables_hold_the_bad_and_valid_rows_of_each_data_time_once(tmp_path, clean_postgres):
    from tests.postgres_server import PASSWORD

    env = {PASSWORD_ENV: PASSWORD}
    _write(tmp_path, _postgres_outputs(clean_postgres), FIRST)
    assert _run(tmp_path, "2026-11-24", env=env).returncode == 0
    _write(tmp_path, _postgres_outputs(clean_postgres), SECOND)
    assert _run(tmp_path, "2026-11-25", env=env).returncode == 0
    done = _run(tmp_path, "2026-11-25", env=env)  # the same data time again: its rows once
    assert done.returncode == 0, done.stderr
    bad = (
        "select id, customer, data_time, _dq_errors::jsonb->0->>'rule', _dq_run::jsonb->>'data_time' from dq.bad_orders"
    )
    assert _pg_rows(clean_postgres, bad) == sorted(
        [
            (2, None, "2026-11-24", "orders_complete", "2026-11-24"),
            (3, "cy", "2026-11-24", "orders_ids", "2026-11-24"),
            (3, "dée", "2026-11-24", "orders_ids", "2026-11-24"),
            (4, None, "2026-11-25", "orders_complete", "2026-11-25"),
        ],
        key=repr,
    )
    good = _pg_rows(clean_postgres, "select id, customer, data_time from dq.good_orders")
    assert good == sorted([(1, "ann", "2026-11-24"), (1, "ann", "2026-11-25"), (2, "bo", "2026-11-25")], key=repr)
    assert PASSWORD not in done.stdout + done.stderr


def test_a_run_killed_between_its_two_postgres_tables_leaves_both_old(tmp_path, clean_postgres):
    from tests.postgres_server import PASSWORD

    env = {PASSWORD_ENV: PASSWORD}
    _write(tmp_path, _postgres_outputs(clean_postgres), FIRST)
    assert _run(tmp_path, "2026-11-24", env=env).returncode == 0
    _write(tmp_path, _postgres_outputs(clean_postgres), SECOND)
    killed = _run(tmp_path, "2026-11-24", env={**env, "GRYPH_QUARANTINE_CRASH_AT": "swapped"})
    assert killed.returncode == -9  # after the quarantine's rows were replaced, before the valid table's
    bad, good = "select id, customer from dq.bad_orders", "select id, customer from dq.good_orders"
    # one transaction: the server rolled the quarantine's change back with the connection
    assert _pg_rows(clean_postgres, bad) == [(2, None), (3, "cy"), (3, "dée")]
    assert _pg_rows(clean_postgres, good) == [(1, "ann")]
    assert _run(tmp_path, "2026-11-24", env=env).returncode == 0
    assert (_pg_rows(clean_postgres, bad), _pg_rows(clean_postgres, good)) == ([(4, None)], [(1, "ann"), (2, "bo")])


def test_a_postgres_table_of_other_columns_is_refused_before_the_scan(tmp_path, clean_postgres):
    from tests.postgres_server import PASSWORD

    for statement in ("create schema dq", "create table dq.bad_orders (x int)", "insert into dq.bad_orders values (7)"):
        clean_postgres.execute(statement)
    _write(tmp_path, _postgres_outputs(clean_postgres), FIRST)
    (tmp_path / "orders.csv").unlink()  # a scan would say the file is missing: the table is found first
    done = _run(tmp_path, "2026-11-24", env={PASSWORD_ENV: PASSWORD})
    assert done.returncode == 2, done.stderr
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine table postgres(" in done.stderr
    # the run writes id, customer (the source's), _dq_errors, _dq_run (a quarantine's) and data_time
    assert (
        "has no column 'id', 'customer', '_dq_errors', '_dq_run', 'data_time'; "
        "has columns the run does not write: 'x'" in done.stderr
    )
    assert "SOURCE_NOT_FOUND" not in done.stderr
    assert _pg_rows(clean_postgres, "select x from dq.bad_orders") == [(7,)]


def test_a_postgres_table_of_the_columns_but_other_types_is_left_unchanged(tmp_path, clean_postgres):
    """Names are checked before the scan; a column of another type is the server's refusal at the
    commit, in the transaction that leaves the old rows."""
    from tests.postgres_server import PASSWORD

    for statement in (
        "create schema dq",
        "create table dq.bad_orders (id bigint, customer int, _dq_errors text, _dq_run text, data_time text)",
        "insert into dq.bad_orders values (7, 7, '[]', '{}', '2026-11-24')",
    ):
        clean_postgres.execute(statement)
    _write(tmp_path, _postgres_outputs(clean_postgres), FIRST)
    done = _run(tmp_path, "2026-11-24", env={PASSWORD_ENV: PASSWORD})
    assert done.returncode == 3, done.stderr
    assert "s.dq:5:1: error QUARANTINE_NOT_WRITTEN: quarantine of orders postgres(" in done.stderr
    assert _pg_rows(clean_postgres, "select id, customer from dq.bad_orders") == [(7, 7)]  # rolled back


def test_an_iceberg_table_of_other_columns_is_refused_before_the_scan(tmp_path):
    import pyarrow as pa
    from pyiceberg.catalog import load_catalog

    _write(tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n", FIRST)
    catalog = load_catalog("lake", uri=f"sqlite:///{tmp_path}/lake/catalog.db", warehouse=f"file://{tmp_path}/lake")
    catalog.create_namespace("dq")
    wrong = pa.table({"id": [7], "client": ["x"], "_dq_errors": ["[]"], "_dq_run": ["{}"], "data_time": ["d"]})
    catalog.create_table(("dq", "bad_orders"), schema=wrong.schema).append(wrong)
    snapshot = catalog.load_table(("dq", "bad_orders")).current_snapshot().snapshot_id
    (tmp_path / "orders.csv").unlink()  # a scan would say the file is missing: the table is found first
    done = _run(tmp_path, "2026-11-24")
    assert done.returncode == 2, done.stderr
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine table iceberg(" in done.stderr
    assert "has no column 'customer'; has columns the run does not write: 'client'" in done.stderr
    assert catalog.load_table(("dq", "bad_orders")).current_snapshot().snapshot_id == snapshot


def test_a_postgres_table_its_user_may_not_write_is_refused_before_the_scan(tmp_path, clean_postgres):
    for statement in (
        "create schema dq",
        "create table dq.bad_orders (id bigint)",
        "drop role if exists reader",
        "create role reader login password 'rpw'",
        "grant usage on schema dq to reader",
        "grant select on dq.bad_orders to reader",
    ):
        clean_postgres.execute(statement)
    url = clean_postgres.url(password=False).replace("//gryph@", "//reader@")
    outputs = f'quarantine orders to postgres("{url}", table = "dq.bad_orders", password_env = "{PASSWORD_ENV}")\n'
    (tmp_path / "s.dq").write_text(HEAD + outputs, "utf-8")  # no orders.csv: a scan would fail
    done = _run(tmp_path, "2026-11-24", env={PASSWORD_ENV: "rpw"})
    assert done.returncode == 2
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine of orders postgres(" in done.stderr
    assert "cannot be written (its user may not)" in done.stderr


def test_a_postgres_output_is_a_table_not_a_query(tmp_path):
    _write(tmp_path, 'quarantine orders to postgres("postgresql://u@h/db", query = "select 1")\n', FIRST)
    done = _run(tmp_path, "2026-11-24")
    assert done.returncode == 2
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine table 'postgresql://u@h/db' is a query" in done.stderr


@pytest.mark.spark
def test_spark_runs_write_the_same_rows_to_iceberg_and_postgres(tmp_path, clean_postgres, spark_remote):
    from tests.postgres_server import PASSWORD

    _write(
        tmp_path, f"quarantine orders to {_iceberg(tmp_path)}\n" + _pg(clean_postgres, "valid", "dq.good_orders"), FIRST
    )
    done = _run(tmp_path, "2026-11-24", "--engine", "spark", "--remote", spark_remote, env={PASSWORD_ENV: PASSWORD})
    assert done.returncode == 0, done.stderr
    assert _catalog_rows(tmp_path)[0] == [
        (2, None, "2026-11-24", ["orders_complete"]),
        (3, "cy", "2026-11-24", ["orders_ids"]),
        (3, "dée", "2026-11-24", ["orders_ids"]),
    ]
    assert _pg_rows(clean_postgres, "select id, customer, data_time from dq.good_orders") == [(1, "ann", "2026-11-24")]


def test_a_table_outputs_options_are_its_kinds(tmp_path):
    _write(tmp_path, 'quarantine orders to delta("out/bad", mode = "append")\n', FIRST)
    done = _run(tmp_path, "2026-11-24")
    assert done.returncode == 2
    assert "s.dq:5:1: error QUARANTINE_TARGET: quarantine table 'out/bad' has no option 'mode'" in done.stderr


@pytest.mark.spark
def test_spark_commits_a_delta_output_itself_and_a_rerun_replaces_its_data_time(tmp_path, spark_remote):
    """The cluster writes the Delta table with replaceWhere (no stage on the client); read back
    with deltalake and with Spark, each data time holds its bad rows once."""
    from deltalake import DeltaTable
    from pyspark.sql import SparkSession

    def run(orders: str, day: str):
        _write(tmp_path, 'quarantine orders to delta("out/bad")\nvalid orders to "out/good"\n', orders)
        done = _run(tmp_path, day, "--engine", "spark", "--remote", spark_remote)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["outputs"]["orders"]["quarantine"]

    table = str(tmp_path / "out" / "bad")
    run(FIRST, "2026-11-24")
    run(SECOND, "2026-11-25")
    again = run(SECOND, "2026-11-25")  # the same data time again: its rows once, one more commit
    expected = sorted(
        [
            (2, None, "2026-11-24", ["orders_complete"]),
            (3, "cy", "2026-11-24", ["orders_ids"]),
            (3, "dée", "2026-11-24", ["orders_ids"]),
            (4, None, "2026-11-25", ["orders_complete"]),
        ],
        key=repr,
    )
    read = DeltaTable(table).to_pyarrow_table().to_pylist()
    got = [(r["id"], r["customer"], r["data_time"], [e["rule"] for e in r["_dq_errors"]]) for r in read]
    assert sorted(got, key=repr) == expected
    assert again["format"] == "delta" and again["version"] == DeltaTable(table).version() == 2
    assert not [p for p in (tmp_path / "out" / "bad").iterdir() if p.name.startswith("_staging")]
    spark = SparkSession.builder.remote(spark_remote).create()
    try:
        rows = spark.read.format("delta").load(table).collect()
        by_spark = [(r["id"], r["customer"], r["data_time"], [e["rule"] for e in r["_dq_errors"]]) for r in rows]
    finally:
        spark.stop()
    assert sorted(by_spark, key=repr) == expected
    assert {r["_dq_run"]["engine"] for r in read} == {"spark"}


ODD_HEAD = """suite shop
source orders = csv("orders.csv", header = true, schema = "`Order Id` bigint, `kündé` string, `a.b` string")
completeness orders_complete on orders: `kündé`
"""
ODD = "Order Id,kündé,a.b\n1,ann,x\n2,,y\n"  # bad by hand: 2 (no kündé)


@pytest.mark.parametrize("kind", ["delta", "iceberg", "postgres"])
def test_a_table_gryph_wrote_for_odd_column_names_passes_its_shape_check_again(tmp_path, kind, request):
    """Names with a blank, a dot, case and unicode are compared as the table spells them: the
    table the first run made is the shape the second expects."""
    env = None
    if kind == "postgres":
        from tests.postgres_server import PASSWORD

        server, env = request.getfixturevalue("clean_postgres"), {PASSWORD_ENV: PASSWORD}
        outputs = _pg(server, "quarantine", "dq.bad_orders")
    else:
        target = _iceberg(tmp_path) if kind == "iceberg" else 'delta("out/bad")'
        outputs = f"quarantine orders to {target}\n"
    (tmp_path / "s.dq").write_text(ODD_HEAD + outputs, "utf-8")
    (tmp_path / "orders.csv").write_text(ODD, "utf-8")
    for day in ("2026-11-24", "2026-11-24", "2026-11-25"):
        done = _run(tmp_path, day, env=env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["outputs"]["orders"]["quarantine"]["rows"] == 1
