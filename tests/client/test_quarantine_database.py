"""Quarantine and valid outputs into tables of the ``--database`` DuckDB file, as a user runs them:
``quarantine orders to "table:dq.bad_orders"`` or ``--quarantine-to table:PREFIX``. A rerun of a
data time replaces its rows (both tables in one transaction, so a run killed between the two
writes leaves both old); a run that cannot write the file, a table of another shape, no
``--database`` and a Spark run are located ``QUARANTINE_TARGET`` errors before any scan."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.support.gryph_cli import gryph

HEAD = """suite shop
source orders = csv("orders.csv", header = true, schema = "id bigint, customer string")
completeness orders_complete on orders: customer
uniqueness orders_ids on orders: id
"""
TABLES = 'quarantine orders to "table:dq.bad_orders"\nvalid orders to "table:dq.good_orders"\n'
FIRST = "id,customer\n1,ann\n2,\n3,cy\n3,dée\n"  # bad by hand: 2 (no customer), 3 twice (one in unicode)
SECOND = "id,customer\n1,ann\n2,bo\n4,\n"  # bad by hand: 4
DAY1_BAD = [
    (2, None, ["orders_complete"], "2026-11-24"),
    (3, "cy", ["orders_ids"], "2026-11-24"),
    (3, "dée", ["orders_ids"], "2026-11-24"),
]


def _write(folder: Path, orders: str | None, outputs: str = TABLES) -> None:
    (folder / "s.dq").write_text(HEAD + outputs, "utf-8")
    if orders is not None:
        (folder / "orders.csv").write_text(orders, "utf-8")
    if not (folder / "shop.duckdb").exists():
        duckdb.connect(str(folder / "shop.duckdb")).close()


def _run(folder: Path, day: str = "2026-11-24", *extra: str, env: dict[str, str] | None = None):
    args = ("run", "s.dq", "--no-history", "--data-time", day, "--database", "shop.duckdb", *extra)
    return gryph(*args, cwd=folder, env=env)


def _bad(folder: Path, table: str = "dq.bad_orders") -> list[tuple]:
    with duckdb.connect(str(folder / "shop.duckdb"), read_only=True) as con:
        rows = con.sql(f"SELECT id, customer, [e.rule FOR e IN _dq_errors], data_time FROM {table}").fetchall()
    return sorted(rows, key=repr)


def _good(folder: Path, table: str = "dq.good_orders") -> list[tuple]:
    with duckdb.connect(str(folder / "shop.duckdb"), read_only=True) as con:
        return sorted(con.sql(f"SELECT * FROM {table}").fetchall(), key=repr)


def _run_ids(folder: Path) -> set[str]:
    with duckdb.connect(str(folder / "shop.duckdb"), read_only=True) as con:
        return {row[0] for row in con.sql("SELECT _dq_run.run_id FROM dq.bad_orders").fetchall()}


def test_the_database_file_holds_each_data_times_rows_once(tmp_path):
    _write(tmp_path, FIRST)
    first = _run(tmp_path, "2026-11-24", "--format", "json")
    assert first.returncode == 0, first.stderr
    assert _bad(tmp_path) == DAY1_BAD
    assert _good(tmp_path) == [(1, "ann", "2026-11-24")]
    outputs = json.loads(first.stdout)["outputs"]["orders"]
    assert outputs["quarantine"] == {"path": "table dq.bad_orders", "rows": 3, "format": "duckdb"}
    assert outputs["valid"] == {"path": "table dq.good_orders", "rows": 1, "format": "duckdb"}
    assert _run_ids(tmp_path) == {outputs["run_id"]}
    again = _run(tmp_path, "2026-11-24", "--format", "json")  # the same data time again: the same rows
    assert again.returncode == 0, again.stderr
    assert (_bad(tmp_path), _good(tmp_path)) == (DAY1_BAD, [(1, "ann", "2026-11-24")])
    assert _run_ids(tmp_path) == {json.loads(again.stdout)["outputs"]["orders"]["run_id"]}  # none left of the first
    _write(tmp_path, SECOND)
    assert _run(tmp_path, "2026-11-25").returncode == 0  # another data time: added beside
    assert _bad(tmp_path) == sorted([*DAY1_BAD, (4, None, ["orders_complete"], "2026-11-25")], key=repr)
    assert _run(tmp_path, "2026-11-24").returncode == 0  # the first data time's rows replaced
    assert _bad(tmp_path) == [
        (4, None, ["orders_complete"], "2026-11-24"),
        (4, None, ["orders_complete"], "2026-11-25"),
    ]
    assert _good(tmp_path) == sorted(
        [(1, "ann", "2026-11-24"), (2, "bo", "2026-11-24"), (1, "ann", "2026-11-25"), (2, "bo", "2026-11-25")],
        key=repr,
    )


def test_the_history_keeps_the_tables_and_their_rows(tmp_path):
    _write(tmp_path, FIRST)
    done = gryph(
        "run", "s.dq", "--history", "h.duckdb", "--data-time", "2026-11-24", "--database", "shop.duckdb", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(tmp_path / "h.duckdb"), read_only=True) as con:
        (document,) = con.execute("SELECT document FROM runs").fetchone()  # type: ignore[misc]
    outputs = json.loads(document)["outputs"]["orders"]
    assert (outputs["quarantine"]["path"], outputs["quarantine"]["rows"]) == ("table dq.bad_orders", 3)
    assert (outputs["valid"]["path"], outputs["valid"]["rows"]) == ("table dq.good_orders", 1)


def test_quarantine_to_a_table_prefix_names_a_table_per_source_and_output(tmp_path):
    _write(tmp_path, FIRST, outputs="")
    done = _run(tmp_path, "2026-11-24", "--quarantine-to", "table:q.x_")
    assert done.returncode == 0, done.stderr
    assert _bad(tmp_path, "q.x_orders__quarantine") == DAY1_BAD
    assert _good(tmp_path, "q.x_orders__valid") == [(1, "ann", "2026-11-24")]


def test_a_run_killed_between_the_two_tables_leaves_both_old(tmp_path):
    _write(tmp_path, FIRST)
    assert _run(tmp_path).returncode == 0
    _write(tmp_path, SECOND)
    assert _run(tmp_path, env={"GRYPH_QUARANTINE_CRASH_AT": "swapped"}).returncode == -9
    assert (_bad(tmp_path), _good(tmp_path)) == (DAY1_BAD, [(1, "ann", "2026-11-24")])  # neither table changed
    assert _run(tmp_path).returncode == 0  # the next run writes both
    assert _bad(tmp_path) == [(4, None, ["orders_complete"], "2026-11-24")]
    assert _good(tmp_path) == [(1, "ann", "2026-11-24"), (2, "bo", "2026-11-24")]


def test_a_table_of_another_shape_is_refused_before_the_scan_and_kept(tmp_path):
    _write(tmp_path, FIRST)
    with duckdb.connect(str(tmp_path / "shop.duckdb")) as con:
        con.execute('CREATE SCHEMA dq; CREATE TABLE dq.good_orders (id INTEGER, "odd ""name" VARCHAR)')
        con.execute("INSERT INTO dq.good_orders VALUES (7, 'kept')")
    done = _run(tmp_path)
    assert done.returncode == 2, done.stderr
    assert "s.dq:6:1: error QUARANTINE_TARGET: table dq.good_orders holds other columns than the run writes" in (
        done.stderr
    )
    assert _good(tmp_path, "dq.good_orders") == [(7, "kept")]
    with duckdb.connect(str(tmp_path / "shop.duckdb"), read_only=True) as con:  # nor was the quarantine written
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'bad_orders'").fetchone() == (0,)


def test_a_file_another_process_holds_is_refused_before_the_scan(tmp_path):
    _write(tmp_path, None)  # no orders.csv: a scan would fail otherwise
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True); print(1, flush=True); sys.stdin.read()",
            str(tmp_path / "shop.duckdb"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "1\n"
        done = _run(tmp_path)
    finally:
        holder.communicate("")
    assert done.returncode == 2, done.stderr
    assert (
        "s.dq:5:1: error QUARANTINE_TARGET: table:dq.bad_orders cannot be written: cannot open the DuckDB"
        in done.stderr
    )
    assert "lock" in done.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            (),
            "s.dq:5:1: error QUARANTINE_TARGET: table:dq.bad_orders is a table of the --database DuckDB file: the run names none",
        ),
        (
            ("--engine", "spark"),
            "s.dq:5:1: error QUARANTINE_TARGET: table:dq.bad_orders is a table of the --database DuckDB file: a spark run has none",
        ),
    ],
)
def test_a_run_without_the_database_file_is_refused_before_the_scan(tmp_path, extra, message):
    _write(tmp_path, None)  # no orders.csv: a scan would fail otherwise
    done = gryph("run", "s.dq", "--no-history", *extra, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("parser", ["fast", "textx"])
@pytest.mark.parametrize(
    ("statements", "line", "message"),
    [
        (
            'quarantine orders to "table:a.b.c"\n',
            5,
            "quarantine folder 'table:a.b.c' is not a table name of the form table:[schema.]name",
        ),
        ('quarantine orders to "table:"\n', 5, "is not a table name of the form table:[schema.]name"),
        (
            'quarantine orders to "table:dq.bad"\nvalid orders to "good"\n',
            6,
            "valid folder 'good' must be a table: of the --database file as its quarantine is",
        ),
        (
            'quarantine orders to "bad"\nvalid orders to "table:dq.good"\n',
            6,
            "valid folder 'table:dq.good' must be a table: of the --database file",
        ),
    ],
)
def test_a_bad_table_statement_is_a_located_error(tmp_path, parser, statements, line, message):
    _write(tmp_path, FIRST, outputs=statements)
    done = gryph("validate", "s.dq", cwd=tmp_path, env={"GRYPH_PARSER": parser})
    shown = done.stdout + done.stderr
    assert done.returncode == 2, shown
    assert f"s.dq:{line}:1: error QUARANTINE_TARGET" in shown and message in shown, shown


def test_a_stream_refuses_a_table_of_the_database_file(tmp_path):
    (tmp_path / "landing").mkdir()
    (tmp_path / "e.dq").write_text(
        'suite events_watch\nsource events = folder("landing/", format = "csv", schema = "id bigint, email string")\n'
        'completeness has_email on events: email\nquarantine events to "table:dq.bad_events"\n',
        "utf-8",
    )
    done = gryph("stream", "e.dq", "--available-now", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert (
        "e.dq:4:1: error QUARANTINE_TARGET: table:dq.bad_events is a table of the --database DuckDB file: gryph stream"
        in done.stderr
    )
