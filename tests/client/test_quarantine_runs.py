"""``gryph run --quarantine-to`` as a user runs it: one folder per data time, replaced whole by a
rerun, never half written when the run is killed (SIGKILL at the points GRYPH_QUARANTINE_CRASH_AT
names), and a folder it cannot write refused before any scan."""

from __future__ import annotations

from pathlib import Path

import duckdb

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
        ("taken", "quarantine folder 'taken' is a file, not a folder"),
        ("taken/q", "quarantine folder 'taken/q' is inside the file 'taken'"),
        ("/proc/1/q", "quarantine folder '/proc/1/q' cannot be written ('/proc/1' is read-only)"),
    ):
        done = gryph("run", "s.dq", "--quarantine-to", target, "--no-history", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "QUARANTINE_TARGET" in done.stderr and problem in done.stderr
        assert "s.dq" in done.stderr
