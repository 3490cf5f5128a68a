"""The result document is versioned and read typed: the JSON output names its format first, a
history written before formats had versions still reads (and takes new runs beside its old
ones), and a document's checks and rules read with their outcome, severity and kind."""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from gryph.client import run
from gryph.client.results.document import FORMAT_VERSION, Outcome, Severity
from gryph.client.store.history import HistoryStore
from gryph.compiler.rule_kinds import RuleKind
from tests.support.gryph_cli import gryph

SUITE = """suite users
source t = csv("t.csv", schema = "name varchar")
completeness named on t: name
measure "rows": count(*)
check "has rows": measures["rows"] > 0
check "at most two": measures["rows"] <= 2
warn check "at most one": measures["rows"] <= 1
check "week on week": measures["rows"] >= value_ago("rows", "7d")
"""

# the history's tables and a run's document as gryph wrote them before the result document had a
# version (commit 92dd5ce, the first history): no format_version, policy, rules nor check_details
OLD_TABLES = (
    "create sequence run_order",
    "create table runs (run_id varchar primary key, seq bigint, suite varchar, started timestamp, "
    "engine varchar, passed boolean, document varchar)",
    "create table measure_values (run_id varchar, seq bigint, suite varchar, measure varchar, "
    "started timestamp, value varchar)",
)


def _old_document(rows: int, passed: bool, day: int) -> dict:
    return {
        "name": "users",
        "engine": "duckdb",
        "started": f"2026-11-{day:02d}T08:00:00",
        "duration_seconds": 0.052,
        "metrics": {"named": {"total": rows, "incomplete": 0, "complete": rows}},
        "records": {},
        "measure": {"rows": rows},
        "check": {"has rows": passed},
        "pass": passed,
    }


def _old_history(path) -> None:
    with duckdb.connect(str(path)) as con:
        for statement in OLD_TABLES:
            con.execute(statement)
        for seq, (rows, passed, day) in enumerate([(3, True, 20), (0, False, 21)], start=1):
            started = dt.datetime(2026, 11, day, 8)
            document = json.dumps(_old_document(rows, passed, day))
            con.execute(
                "insert into runs values (?, ?, 'users', ?, 'duckdb', ?, ?)",
                [f"r{seq}", seq, started, passed, document],
            )
            con.execute(
                "insert into measure_values values (?, ?, 'users', 'rows', ?, ?)", [f"r{seq}", seq, started, str(rows)]
            )


def test_the_json_output_names_its_format_first_and_is_otherwise_as_before(tmp_path):
    (tmp_path / "t.csv").write_text('name\nann\n""\nbob\n')
    (tmp_path / "s.dq").write_text(SUITE)
    done = gryph("run", "s.dq", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1  # "at most two" fails on 3 rows
    document = json.loads(done.stdout)
    # the members RunResult.to_dict wrote before the version, listed by hand, and the version first
    assert list(document) == [
        "format_version",
        "name",
        "engine",
        "started",
        "duration_seconds",
        "metrics",
        "records",
        "measure",
        "check",
        "pass",
        "metric",
        "policy",
        "rules",
        "check_details",
        "schemas",  # the source's columns, as the engine reported them
    ]
    assert document["format_version"] == FORMAT_VERSION == 1


def test_checks_and_rules_read_with_their_outcome_severity_and_kind(tmp_path):
    (tmp_path / "t.csv").write_text('name\nann\n""\nbob\n')  # 3 rows, one name empty (NULL)
    (tmp_path / "s.dq").write_text(SUITE)
    document = run(str(tmp_path / "s.dq")).document()
    read = {check.name: (check.outcome, check.severity) for check in document.checks}
    assert read == {
        "has rows": (Outcome.PASS, None),
        "at most two": (Outcome.FAIL, Severity.ERROR),
        "at most one": (Outcome.FAIL, Severity.WARNING),
        "week on week": (Outcome.SKIP, None),  # no run a week ago to compare with
    }
    assert document.format_version == 1 and not document.passed and document.policy == "all"
    assert document.rules["named"].kind is RuleKind.COMPLETENESS
    assert document.measures == {"rows": 3} and document.rows_read == {"t": 3}
    [reads] = {check.name: check.reads for check in document.checks}["has rows"]
    assert (reads.source, reads.name) == ("measure", "rows")


def test_a_history_written_before_format_versions_still_reads(tmp_path):
    history = tmp_path / "h.duckdb"
    _old_history(history)
    old = HistoryStore(history).documents("users", 10)
    assert [(d.format_version, d.run_id, d.passed, d.policy, d.checks, d.rules) for d in old] == [
        (0, "r1", True, "always", (), {}),
        (0, "r2", False, "always", (), {}),
    ]
    assert [d.measures for d in old] == [{"rows": 3}, {"rows": 0}]
    # the report of the old runs: the newest failed (policy always, as runs then had)
    page = tmp_path / "r.html"
    assert gryph("report", "users", "--history", str(history), "--html", str(page), cwd=tmp_path).returncode == 0
    assert "failed (policy: always)" in page.read_text()
    # a new run joins them; the report of all three reads both formats
    (tmp_path / "t.csv").write_text("name\nann\n")
    (tmp_path / "s.dq").write_text(SUITE)
    # one row: every check passes, but "week on week", which passes or skips by the day it runs
    assert gryph("run", "s.dq", "--history", str(history), "--quiet", cwd=tmp_path).returncode == 0
    documents = HistoryStore(history).documents("users", 10)
    assert [d.format_version for d in documents] == [0, 0, 1]
    assert gryph("report", "users", "--history", str(history), "--html", str(page), cwd=tmp_path).returncode == 0
    html = page.read_text()
    assert "Trends over the last 3 runs" in html and 'id="trend-measure-rows-' in html
