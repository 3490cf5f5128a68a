"""`gryph history SUITE --segments` and `--segment VALUE`: the values per segment of measures and
rules written `by COLUMN`, as each run stored them, in text and JSON; NULL and "" told apart."""

from __future__ import annotations

import json
import re

import pytest

from gryph.client.cli.history_segments import wanted_segment
from gryph.client.cli.main import main

SUITE = """suite signups
source signups = json("day.jsonl")
completeness contact on signups by country: email
measure "rows" by country: select count(*) from signups
"""
# 03-01: FR 3 rows (1 without email), "" 2 (both with one), NULL 1 (without)
# 03-02: FR 2 (both with email), NULL 2 (both without), "" 1 (with)
DAYS = {
    "2026-03-01": [("a", "FR"), (None, "FR"), ("c", "FR"), (None, None), ("e", ""), ("f", "")],
    "2026-03-02": [("a", "FR"), ("b", "FR"), (None, None), (None, None), ("e", "")],
}


@pytest.fixture
def history(tmp_path):
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    path = tmp_path / "h.duckdb"
    for day, rows in DAYS.items():
        lines = [json.dumps({"id": i, "email": e, "country": c}) for i, (e, c) in enumerate(rows)]
        (tmp_path / "day.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert main(["run", str(tmp_path / "s.dq"), "--history", str(path), "--quiet", "--data-time", day]) == 0
    return str(path)


def _history(capsys, history: str, *args: str) -> str:
    capsys.readouterr()
    assert main(["history", "signups", "--history", history, *args]) == 0
    return capsys.readouterr().out


def _cells(text: str) -> list[list[str]]:
    """The table's lines after its header, cut at the columns its dashed line marks."""
    lines = text.splitlines()
    spans = [m.span() for m in re.finditer(r"-+", lines[1])]
    return [
        [line[start : end if i < len(spans) - 1 else None].strip() for i, (start, end) in enumerate(spans)]
        for line in lines[2:]
    ]


def test_segments_lists_each_segments_values_in_json(history, capsys):
    runs = json.loads(_history(capsys, history, "--segments", "--format", "json"))["runs"]
    assert [r["data_time"] for r in runs] == ["2026-03-02", "2026-03-01"]
    rows = [{v["segment"]: v["value"] for v in r["measure_segments"]["rows"]["values"]} for r in runs]
    assert rows == [{"FR": 2, None: 2, "": 1}, {"FR": 3, "": 2, None: 1}]
    assert runs[0]["measure_segments"]["rows"]["column"] == "country"
    contact = {v["segment"]: v["metrics"] for v in runs[1]["segments"]["contact"]["values"]}
    assert contact == {
        "FR": {"total": 3, "incomplete": 1, "complete": 2},
        "": {"total": 2, "incomplete": 0, "complete": 2},
        None: {"total": 1, "incomplete": 1, "complete": 0},
    }
    plain = json.loads(_history(capsys, history, "--format", "json"))["runs"]
    assert [r["measure"] for r in plain] == [{"rows": 5}, {"rows": 6}]
    assert not any("segments" in r or "measure_segments" in r for r in plain)  # only when asked


def test_segments_lists_each_segment_below_its_total_in_text(history, capsys):
    cells = _cells(_history(capsys, history, "--segments"))
    newest = [line[-4:] for line in cells[:8]]
    # the segments below each total, as the run stored them (the most rows first), NULL and "" apart
    assert newest == [
        ["True", 'measures["rows"]', "", "5"],
        ["", 'measures["rows"]', "country = NULL", "2"],
        ["", 'measures["rows"]', 'country = "FR"', "2"],
        ["", 'measures["rows"]', 'country = ""', "1"],
        ["", 'metrics["contact"]', "", "total 5, incomplete 2, complete 3"],
        ["", 'metrics["contact"]', "country = NULL", "total 2, incomplete 2, complete 0"],
        ["", 'metrics["contact"]', 'country = "FR"', "total 2, incomplete 0, complete 2"],
        ["", 'metrics["contact"]', 'country = ""', "total 1, incomplete 0, complete 1"],
    ]
    assert [line[1] for line in cells] == ["2026-03-02"] + [""] * 7 + ["2026-03-01"] + [""] * 7


@pytest.mark.parametrize(
    "written,label,values", [('""', '""', [1, 2]), ("NULL", "NULL", [2, 1]), ("FR", '"FR"', [2, 3])]
)
def test_segment_picks_one_segment_of_a_measure(history, capsys, written, label, values):
    runs = json.loads(_history(capsys, history, "--measure", "rows", "--segment", written, "--format", "json"))["runs"]
    assert [(r["column"], r["segment"], r["value"]) for r in runs] == [
        ("country", wanted_segment(written), value) for value in values
    ]
    cells = _cells(_history(capsys, history, "--measure", "rows", "--segment", written))
    assert [line[-3:] for line in cells] == [["True", f"country = {label}", str(value)] for value in values]


def test_segment_keeps_the_totals_and_that_segment_of_every_split(history, capsys):
    runs = json.loads(_history(capsys, history, "--segment", '"FR"', "--format", "json"))["runs"]
    assert [r["measure"]["rows"] for r in runs] == [5, 6]
    assert [[v["segment"] for v in r["measure_segments"]["rows"]["values"]] for r in runs] == [["FR"], ["FR"]]
    assert [r["segments"]["contact"]["values"][0]["metrics"]["incomplete"] for r in runs] == [0, 1]


def test_a_segment_no_run_holds_names_those_stored(history, capsys):
    said = _history(capsys, history, "--segment", "DE")
    assert said.startswith("no runs of 'signups' with segment \"DE\" in ")
    assert said.rstrip().endswith('(segments stored: NULL, "FR", "")')
    assert json.loads(_history(capsys, history, "--segment", "DE", "--format", "json"))["runs"] == []


def test_a_segment_is_written_as_gryph_shows_it_or_as_bare_text():
    assert [wanted_segment(text) for text in ('"FR"', "FR", '""', "", "NULL", '"NULL"', "3", '"3"', "2.5", "True")] == [
        "FR",
        "FR",
        "",
        "",
        None,
        "NULL",
        3,
        "3",
        2.5,
        True,
    ]
