"""The ``gryph`` command, run as a user runs it: a subprocess, exit codes, stdout and stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import tomllib

from tests.support.gryph_cli import ROOT, gryph


def test_run_example_exits_0():
    done = gryph("run", "examples/users.dq")
    assert done.returncode == 0, done.stderr
    assert "users_daily" in done.stdout and "contact" in done.stdout


def test_run_json_report():
    done = gryph("run", "examples/users.dq", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"name", "engine", "metrics", "records"} <= set(report)
    assert report["name"] == "users_daily" and report["engine"] == "duckdb"
    assert report["metrics"]["contact"] == {"total": 50, "incomplete": 1, "complete": 49}
    assert report["records"], "the example flags records"
    for record in report["records"].values():
        assert {"count", "sample"} <= set(record)
        assert isinstance(record["count"], int) and isinstance(record["sample"], list)
        assert len(record["sample"]) <= record["count"]


def test_run_json_to_a_file(tmp_path):
    out = tmp_path / "nested" / "report.json"
    done = gryph("run", "examples/users.dq", "--format", "json", "--output", str(out), "--sample", "0")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert all(record["sample"] == [] for record in report["records"].values())


def test_validate_ok():
    done = gryph("validate", "examples/users.dq")
    assert done.returncode == 0, done.stderr
    assert "ok" in done.stdout


def test_validate_bad_file_exits_2_with_location(tmp_path):
    bad = tmp_path / "bad.dq"
    bad.write_text(
        'source t = csv("t.csv", schema = "first_name string, age bigint")\n'
        "completeness c on t:\n    age,\n    frist_name\n"
    )
    (tmp_path / "t.csv").write_text("first_name,age\nann,3\n")
    done = gryph("validate", str(bad))
    assert done.returncode == 2
    assert f"{bad}:4:5" in done.stderr
    assert "UNKNOWN_COLUMN" in done.stderr and "first_name" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_syntax_error_exits_2(tmp_path):
    bad = tmp_path / "bad.dq"
    bad.write_text('source t = csv("t.csv", schema = "a bigint")\ncompleteness c on t: a $\n')
    (tmp_path / "t.csv").write_text("a\n1\n")
    done = gryph("validate", str(bad))
    assert done.returncode == 2
    assert f"{bad}:2:" in done.stderr and "SYNTAX_ERROR" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_data_file_exits_3(tmp_path):
    suite = tmp_path / "s.dq"
    suite.write_text('source t = csv("does_not_exist.csv", schema = "a bigint")\ncompleteness c on t: a\n')
    done = gryph("run", str(suite))
    assert done.returncode == 3
    assert "does_not_exist.csv" in done.stderr and "Traceback" not in done.stderr


def test_missing_suite_file_is_an_error(tmp_path):
    done = gryph("run", str(tmp_path / "nope.dq"))
    assert done.returncode in (2, 3)
    assert "nope.dq" in done.stderr and "Traceback" not in done.stderr


def test_explain_prints_the_plan():
    done = gryph("explain", "examples/users.dq")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("query agg0:")
    assert "Read users [" in done.stdout and "Aggregate" in done.stdout
    # record samples wait for their counts: the plan says which queries may not run
    assert "(only if its record output has rows)" in done.stdout


def test_unknown_engine_is_rejected_by_the_parser():
    done = gryph("run", "examples/users.dq", "--engine", "oracle")
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_version_is_the_packages_own():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = gryph("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"gryph {declared}\n"


def test_a_suite_file_with_another_extension_is_read_as_a_file(tmp_path):
    suite = tmp_path / "checks.rules"
    suite.write_text('source t = csv("t.csv", schema = "a bigint")\ncompleteness c on t: a\n')
    (tmp_path / "t.csv").write_text("a\n1\n")
    done = gryph("validate", str(suite))
    assert done.returncode == 0, done.stderr


def test_tables_of_a_duckdb_database(tmp_path):
    import duckdb

    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE SCHEMA sales")
        con.execute("CREATE TABLE sales.orders AS SELECT * FROM (VALUES (1, 'a'), (2, NULL), (3, 'c')) t(id, note)")
    suite = tmp_path / "orders.dq"
    suite.write_text('source orders = table("sales.orders")\ncompleteness notes on orders: note\n')
    done = gryph("run", str(suite), "--database", str(database), "--format", "json", "--no-history")
    assert done.returncode == 0, done.stderr
    # one of three notes is NULL
    assert json.loads(done.stdout)["metrics"]["notes"] == {"total": 3, "incomplete": 1, "complete": 2}
    missing = gryph("validate", str(suite), "--database", str(tmp_path / "nope.duckdb"))
    assert missing.returncode == 3 and "DATABASE_NOT_FOUND" in missing.stderr


def test_read_per_scan_is_a_spark_option(spark_remote):
    on_duckdb = gryph("run", "examples/users.dq", "--read-per-scan", "--no-history")
    assert on_duckdb.returncode == 2 and "BAD_OPTION" in on_duckdb.stderr
    done = gryph(
        "run", "examples/users.dq", "--remote", spark_remote, "--read-per-scan", "--format", "json", "--no-history"
    )
    assert done.returncode == 0, done.stderr
    # the example's 50 users, one without contact details (as on DuckDB above)
    assert json.loads(done.stdout)["metrics"]["contact"] == {"total": 50, "incomplete": 1, "complete": 49}


# The command (``entry``) ends the process once ``main`` returns: an exit handler that never
# ends (as PySpark's cleanup request to a server that hangs would) cannot hold its exit code back.
_ENTRY = """
import atexit, sys, time
from gryph.client.cli.main import entry
atexit.register(time.sleep, 3600)
sys.argv = ["gryph", *sys.argv[1:]]
entry()
"""


def _probe(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _ENTRY, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_command_exits_with_its_code_whatever_runs_at_exit():
    done = _probe("run", "examples/users.dq", "--no-history")
    # DuckDB's bindings would report each of their objects still alive at a normal exit as a leak
    assert done.returncode == 0 and done.stderr == "", done.stderr
    missing = _probe("run", "nosuch.dq", "--no-history")
    assert missing.returncode == 2 and "nosuch.dq" in missing.stderr


def test_the_command_exits_with_its_code_after_a_spark_run(spark_remote):
    done = _probe("run", "examples/users.dq", "--no-history", "--engine", "spark", "--remote", spark_remote)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_help_groups_the_options_and_shows_examples_and_exit_codes():
    shown = gryph("run", "--help").stdout
    titles = [line for line in shown.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert titles == [
        "positional arguments:",
        "options:",
        "engine:",
        "engine settings:",
        "outputs:",
        "history:",
        "verdict:",
        "alerts:",
        "lineage:",
        "data time:",
        "examples:",
        "exit codes:",
    ]
    assert "  4  passed, but not stored in the history" in shown
    shown = gryph("stream", "--help").stdout
    assert "gryph stream status clicks.dq" in shown and "gryph stream reset clicks.dq --to earliest --yes" in shown
    assert shown.startswith("usage: gryph stream SUITE [options]\n       gryph stream status SUITE")
