"""``gryph run --quarantine-to`` as a user runs it: one folder per data time, replaced whole by a
rerun, never half written when the run is killed (SIGKILL at the points GRYPH_QUARANTINE_CRASH_AT
names), and a folder it cannot write refused before any scan."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.support.gryph_cli import gryph

SUITE = """suite shop
source orders = csv("orders.csv", header = true, schema = "id bigint, customer string")
completeness orders_complete on orders: customer
uniqueness orders_ids on orders: id
"""
FIRST = "id,customer\n1,ann\n2,\n3,cy\n3,dee\n"  # bad by hand: 2 (no customer), 3 twice
SECOND = "id,customer\n1,ann\n2,bo\n4,\n"  # bad by hand: 4


def _suite(folder: Path, orders: str) -> None:
    (folder / "s.dq").write_text(SUITE, "utf-8")
    (folder / "orders.csv").write_text(orders, "utf-8")


def _ids(folder: Path, output: str, data_time: str = "2026-11-24") -> list[int]:
    pattern = str(folder / "q" / "orders" / output / f"data_time={data_time}" / "*.parquet")
    return sorted(row[0] for row in duckdb.sql(f"SELECT id FROM read_parquet('{pattern}')").fetchall())


def _run(folder: Path, *extra: str, env: dict[str, str] | None = None):
    args = ("run", "s.dq", "--quarantine-to", "q", "--no-history", "--data-time", "2026-11-24", *extra)
    return gryph(*args, cwd=folder, env=env)


def test_a_rerun_of_a_data_time_replaces_its_rows_and_keeps_the_others(tmp_path):
    _suite(tmp_path, FIRST)
    assert _run(tmp_path).returncode == 0  # no checks: the rules measure, the outputs hold the rows
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([2, 3, 3], [1])
    gryph("run", "s.dq", "--quarantine-to", "q", "--no-history", "--data-time", "2026-11-23", cwd=tmp_path)
    _suite(tmp_path, SECOND)
    _run(tmp_path)
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([4], [1, 2])
    assert _ids(tmp_path, "quarantine", "2026-11-23") == [2, 3, 3]  # another data time is left alone
    left = sorted(p.name for p in (tmp_path / "q" / "orders").rglob("*") if p.name.startswith("_") and p.is_dir())
    assert left == []


def test_a_run_killed_before_its_swap_leaves_the_old_rows(tmp_path):
    _suite(tmp_path, FIRST)
    _run(tmp_path)
    _suite(tmp_path, SECOND)
    killed = _run(tmp_path, env={"GRYPH_QUARANTINE_CRASH_AT": "staged"})
    assert killed.returncode == -9
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([2, 3, 3], [1])
    _run(tmp_path)  # the next run clears the stage and writes the new rows
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([4], [1, 2])
    assert not list((tmp_path / "q").rglob("_staging-*"))


def test_a_run_killed_between_its_swaps_is_finished_by_the_next(tmp_path):
    _suite(tmp_path, FIRST)
    _run(tmp_path)
    _suite(tmp_path, SECOND)
    assert _run(tmp_path, env={"GRYPH_QUARANTINE_CRASH_AT": "swapped"}).returncode == -9
    # each folder is whole: the quarantine already the new rows, the valid one still the old
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([4], [1])
    _suite(tmp_path, FIRST)  # the next run first finishes the journal, then writes its own rows
    _run(tmp_path)
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([2, 3, 3], [1])
    assert not list((tmp_path / "q").rglob("_swaps-*")) and not list((tmp_path / "q").rglob("_staging-*"))


def test_a_folder_that_cannot_be_written_is_refused_before_the_scan(tmp_path):
    (tmp_path / "s.dq").write_text(SUITE, "utf-8")  # no orders.csv: a scan would fail otherwise
    (tmp_path / "taken").write_text("a file", "utf-8")
    for target, problem in (
        ("taken", "output folder 'taken' is a file, not a folder"),
        ("taken/q", "output folder 'taken/q' is inside the file 'taken'"),
        ("/proc/1/q", "output folder '/proc/1/q' cannot be written ('/proc/1' is read-only)"),
    ):
        done = gryph("run", "s.dq", "--quarantine-to", target, "--no-history", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "QUARANTINE_TARGET" in done.stderr and problem in done.stderr
        assert "s.dq" in done.stderr


def test_the_suite_names_its_quarantine_folder(tmp_path):
    _suite(tmp_path, FIRST)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to "out/bad orders"\n')
    assert gryph("run", "s.dq", "--no-history", "--data-time", "2026-11-24T06:00:00", cwd=tmp_path).returncode == 0
    written = tmp_path / "out" / "bad orders" / "data_time=2026-11-24T06-00-00Z"
    ids = duckdb.sql(f"SELECT id FROM read_parquet('{written}/*.parquet') ORDER BY id").fetchall()
    assert [row[0] for row in ids] == [2, 3, 3]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["bad orders"]  # no valid statement: none


@pytest.mark.parametrize("parser", ["fast", "textx"])
@pytest.mark.parametrize(
    ("statement", "column", "message"),
    [
        ('quarantine orders to "../bad"', 22, "quarantine folder '../bad' is outside the suite's folder"),
        ('quarantine orders to "/tmp/bad"', 22, "quarantine folder '/tmp/bad' is outside the suite's folder"),
        ('quarantine ordrs to "bad"', 12, "quarantine 'ordrs' names an unknown source"),
        ('valid orders to "good"', 1, "valid folder 'good' comes before a 'quarantine orders to ...' statement"),
        ('quarantine items to "bad"', 1, "quarantine folder 'bad' holds rows of source 'items', which no"),
    ],
)
def test_a_bad_output_statement_is_a_located_error(tmp_path, parser, statement, column, message):
    _suite(tmp_path, FIRST)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('source items = csv("items.csv")\n' + statement + "\n")
    done = gryph("validate", "s.dq", cwd=tmp_path, env={"GRYPH_PARSER": parser})
    assert done.returncode == 2, done.stdout + done.stderr
    shown = done.stdout + done.stderr
    assert message in shown and ("QUARANTINE_TARGET" in shown or "UNKNOWN_SOURCE" in shown)
    assert "s.dq:6:" in shown, shown


@pytest.mark.parametrize("parser", ["fast", "textx"])
def test_a_wrong_quarantine_statement_is_reported_once_not_again_by_the_next(tmp_path, parser):
    _suite(tmp_path, FIRST)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to "../bad"\nvalid orders to "good"\nquarantine orders to "bad2"\n')
    done = gryph("validate", "s.dq", cwd=tmp_path, env={"GRYPH_PARSER": parser})
    shown = done.stdout + done.stderr
    assert done.returncode == 2, shown
    # line 5: outside; line 6 follows a quarantine statement (a wrong one): no error of its own;
    # line 7 is the source's second quarantine statement
    assert "s.dq:5:" in shown and "outside the suite's folder" in shown
    assert "s.dq:6:" not in shown and "comes before" not in shown
    assert "s.dq:7:" in shown and "is the second quarantine folder of source 'orders'" in shown


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"x": [1, 2]}, "quarantine table 'out/bad' is partitioned by nothing, not by ['data_time']"),
        # gryph's own shape but for a source whose column was named otherwise: no 'customer' column
        (
            {"id": [1], "client": ["a"], "_dq_errors": ["[]"], "_dq_run": ["{}"], "data_time": ["2026-11-01"]},
            "quarantine table 'out/bad' has no column 'customer'",
        ),
    ],
)
def test_a_delta_table_of_another_shape_is_refused_before_any_scan(tmp_path, table, message):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    _suite(tmp_path, FIRST)
    (tmp_path / "orders.csv").unlink()  # a scan would say the file is missing: the table is found first
    partitions = ["data_time"] if "data_time" in table else None
    write_deltalake(str(tmp_path / "out" / "bad"), pa.table(table), partition_by=partitions)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to delta("out/bad")\n')
    done = gryph("run", "s.dq", "--no-history", "--data-time", "2026-11-24", cwd=tmp_path)
    shown = done.stdout + done.stderr
    assert done.returncode == 2, shown
    assert "QUARANTINE_TARGET" in shown and message in shown and "SOURCE_NOT_FOUND" not in shown
    assert DeltaTable(str(tmp_path / "out" / "bad")).version() == 0  # left as it was


@pytest.mark.parametrize("parser", ["fast", "textx"])
def test_a_delta_quarantine_replaces_its_data_time_in_one_commit(tmp_path, parser):
    from deltalake import DeltaTable

    _suite(tmp_path, FIRST)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to delta("out/bad")\n')
    env = {"GRYPH_PARSER": parser}

    def day(data_time: str, crash: str | None = None):
        extra = {"GRYPH_QUARANTINE_CRASH_AT": crash} if crash else {}
        return gryph("run", "s.dq", "--no-history", "--data-time", data_time, cwd=tmp_path, env={**env, **extra})

    def rows() -> list[tuple[int, str, list[str]]]:
        table = DeltaTable(str(tmp_path / "out" / "bad")).to_pyarrow_table().to_pylist()
        return sorted((r["id"], r["data_time"], [e["rule"] for e in r["_dq_errors"]]) for r in table)

    day("2026-11-23")
    day("2026-11-24")
    first = [(2, "orders_complete"), (3, "orders_ids"), (3, "orders_ids")]
    expected = sorted((i, d, [rule]) for d in ("2026-11-23", "2026-11-24") for i, rule in first)
    assert rows() == expected
    _suite(tmp_path, SECOND)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to delta("out/bad")\n')
    assert day("2026-11-24", crash="staged").returncode == -9
    assert rows() == expected  # killed before its commit: the old rows, the old version
    version = DeltaTable(str(tmp_path / "out" / "bad")).version()
    assert day("2026-11-24").returncode == 0
    assert rows() == sorted([*(r for r in expected if r[1] == "2026-11-23"), (4, "2026-11-24", ["orders_complete"])])
    assert DeltaTable(str(tmp_path / "out" / "bad")).version() == version + 1  # one commit for the data time
    (commit,) = DeltaTable(str(tmp_path / "out" / "bad")).history(1)
    day_rows = DeltaTable(str(tmp_path / "out" / "bad")).to_pyarrow_table().to_pylist()
    assert {commit["gryph.run_id"]} == {r["_dq_run"]["run_id"] for r in day_rows if r["data_time"] == "2026-11-24"}


@pytest.mark.spark
def test_spark_writes_a_relative_folder_of_the_client(tmp_path, spark_remote):
    """The cluster writes the rows, to the client's folder (found by hand: a relative folder was
    the local server's, and the client published empty folders)."""
    _suite(tmp_path, FIRST)
    done = _run(tmp_path, "--engine", "spark", "--remote", spark_remote)
    assert done.returncode == 0, done.stderr
    assert (_ids(tmp_path, "quarantine"), _ids(tmp_path, "valid")) == ([2, 3, 3], [1])


def test_the_history_keeps_where_the_rows_went(tmp_path):
    _suite(tmp_path, FIRST)
    gryph("run", "s.dq", "--quarantine-to", "q", "--history", "h.duckdb", "--data-time", "2026-11-24", cwd=tmp_path)
    with duckdb.connect(str(tmp_path / "h.duckdb"), read_only=True) as con:
        (document,) = con.execute("SELECT document FROM runs").fetchone()  # type: ignore[misc]
    outputs = json.loads(document)["outputs"]["orders"]
    assert outputs["quarantine"] == {"path": "q/orders/quarantine/data_time=2026-11-24", "rows": 3}
    assert outputs["valid"] == {"path": "q/orders/valid/data_time=2026-11-24", "rows": 1}
    marked = (tmp_path / "q" / "orders" / "quarantine" / "data_time=2026-11-24" / "_gryph_run").read_text("utf-8")
    assert outputs["run_id"] == marked


def test_a_delta_table_whose_column_types_differ_is_left_unchanged(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    _suite(tmp_path, FIRST)
    with (tmp_path / "s.dq").open("a", encoding="utf-8") as suite:
        suite.write('quarantine orders to delta("out/bad")\n')
    # every column there, partitioned as gryph's, but _dq_errors is text: only the commit finds it
    old = {"id": [1], "customer": ["a"], "_dq_errors": ["[]"], "_dq_run": ["{}"], "data_time": ["2026-11-01"]}
    write_deltalake(str(tmp_path / "out" / "bad"), pa.table(old), partition_by=["data_time"])
    done = gryph("run", "s.dq", "--no-history", "--data-time", "2026-11-24", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "s.dq: error QUARANTINE_NOT_WRITTEN: output folder 'out/bad' was not written" in done.stderr
    table = DeltaTable(str(tmp_path / "out" / "bad"))
    assert (table.version(), table.to_pyarrow_table().to_pylist()) == (0, [{k: v[0] for k, v in old.items()}])
