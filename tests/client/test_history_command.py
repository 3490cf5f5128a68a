"""`gryph history SUITE`: every run's measures and rule metrics, newest first, in text and JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb

from tests.support.gryph_cli import gryph

SUITE = """suite s
source t = csv("t.csv", schema = "id bigint, email string")
completeness c on t: email
uniqueness u on t: id with duplication.array = "dup"
profiling p on t: count(*) as n
measure "größe \\"t\\"": select count(*) from t
"""
# first run: ids 1, 2, 2, 3 and one NULL email -> c: total 4, incomplete 1, complete 3;
# u: total 4, unique 2 (1 and 3), one duplicated value with one extra copy (one dup row); p: one row
FIRST = "id,email\n1,a@x\n2,\n2,b@x\n3,c@x\n"
# second run: ids 1..5 complete -> c: total 5, incomplete 0, complete 5; u: total 5, unique 5, no dup row
SECOND = "id,email\n1,a\n2,b\n3,c\n4,d\n5,e\n"


def _runs(tmp_path: Path, history: Path) -> None:
    (tmp_path / "s.dq").write_text(SUITE)
    for data in (FIRST, SECOND):
        (tmp_path / "t.csv").write_text(data)
        done = gryph("run", str(tmp_path / "s.dq"), "--history", str(history), cwd=tmp_path)
        assert done.returncode == 0, done.stderr


def test_history_lists_rule_metrics_newest_first(tmp_path):
    history = tmp_path / "h.duckdb"
    _runs(tmp_path, history)
    done = gryph("history", "s", "--history", str(history), "--format", "json")
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert [r["measure"] for r in runs] == [{'größe "t"': 5}, {'größe "t"': 4}]
    assert [r["metrics"]["c"] for r in runs] == [
        {"total": 5, "incomplete": 0, "complete": 5},
        {"total": 4, "incomplete": 1, "complete": 3},
    ]
    assert runs[1]["metrics"]["u"] == {"total": 4, "unique": 2, "dup": [{"dup": 1, "num": 1}]}
    assert [r["metrics"]["p"] for r in runs] == [[{"n": 5}], [{"n": 4}]]
    assert list(runs[0]["metrics"]) == ["c", "u", "p"]  # the suite's order

    text = gryph("history", "s", "--history", str(history))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    header = re.split(r"\s{2,}", lines[0])
    assert header[0] == "started" and header[-4:] == ["engine", "pass", "measure or rule", "value"]
    values = [re.split(r"\s{2,}", line.strip())[-2:] for line in lines[2:]]
    assert values == [
        ['measures["größe \\"t\\""]', "5"],
        ['metrics["c"]', "total 5, incomplete 0, complete 5"],
        ['metrics["u"]', "total 5, unique 5, dup 0 rows"],
        ['metrics["p"]', "1 row"],
        ['measures["größe \\"t\\""]', "4"],
        ['metrics["c"]', "total 4, incomplete 1, complete 3"],
        ['metrics["u"]', "total 4, unique 2, dup 1 row"],
        ['metrics["p"]', "1 row"],
    ]
    run_lines = [line for line in lines[2:] if not line.startswith(" ")]  # a run's cells on its first line
    assert len(run_lines) == 2 and all("duckdb  True" in line for line in run_lines)


def test_runs_stored_before_rule_metrics_were_kept_list_their_measures(tmp_path):
    history = tmp_path / "h.duckdb"
    _runs(tmp_path, history)
    with duckdb.connect(str(history)) as con:  # a history written before the metric_values table
        con.execute("drop table metric_values")
    runs = json.loads(gryph("history", "s", "--history", str(history), "--format", "json").stdout)["runs"]
    assert [r["metrics"] for r in runs] == [{}, {}]
    text = gryph("history", "s", "--history", str(history)).stdout
    assert "metrics[" not in text and text.count('measures["größe') == 2


def test_a_run_that_broke_shows_why_in_place_of_its_values(tmp_path):
    history = tmp_path / "h.duckdb"
    _runs(tmp_path, history)
    (tmp_path / "t.csv").unlink()  # the third run finds no file: it breaks, and the history keeps it
    broken = gryph("run", str(tmp_path / "s.dq"), "--history", str(history), cwd=tmp_path)
    assert broken.returncode == 3, broken.stderr

    runs = json.loads(gryph("history", "s", "--history", str(history), "--format", "json").stdout)["runs"]
    assert [r["pass"] for r in runs] == [False, True, True]
    assert runs[0]["error"]["code"] == "SOURCE_NOT_FOUND" and "t.csv" in runs[0]["error"]["message"]
    assert runs[0]["measure"] == {} and "error" not in runs[1]

    lines = gryph("history", "s", "--history", str(history)).stdout.splitlines()
    newest = re.split(r"\s{2,}", lines[2].strip())
    assert newest[-3] == "False" and newest[-2] == "error"
    assert "SOURCE_NOT_FOUND" in newest[-1] and "t.csv" in newest[-1]
