"""An anomaly check by a column learns each segment's baseline from that segment's own history
(not the total's, not another segment's); a segment new since the run before is SKIP and says so;
a segment of the run before that is gone is a warning row naming it. Runs by --data-time, the
bounds derived by hand from absolute_change(max_increase = 2, max_decrease = 2)."""

from __future__ import annotations

import json

from tests.support.gryph_cli import gryph

SUITE = """suite a
source t = csv("t.csv")
measure "rows" by country: select count(*) from t
{warn}check "rows steady" by country: anomaly(measures["rows"], absolute_change(max_increase = 2, max_decrease = 2))
"""


def _day(tmp_path, day: str, countries: list[str], warn: str = "") -> dict:
    lines = ["id,country"] + [f"{i},{c}" for i, c in enumerate(countries)]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "a.dq").write_text(SUITE.format(warn=warn), encoding="utf-8")
    done = gryph("run", "a.dq", "--history", "h.duckdb", "--data-time", day, "--format", "json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    (check,) = json.loads(done.stdout)["check_details"]
    return check


def _by_segment(check: dict) -> dict:
    return {s["segment"]: s for s in check["segments"]}


def test_each_segment_learns_from_its_own_history(tmp_path):
    first = _day(tmp_path, "2026-01-01", ["FR"] * 3 + ["DE"] * 10)
    assert first["status"] == "SKIP"  # no segment has an earlier run
    # FR 3 -> 6: outside [1, 5]; DE 10 -> 9: inside [8, 12]; the total 13 -> 15 would be inside [11, 15]
    second = _by_segment(_day(tmp_path, "2026-01-02", ["FR"] * 6 + ["DE"] * 9))
    assert (second["FR"]["status"], second["FR"]["values"]["lower bound"], second["FR"]["values"]["upper bound"]) == (
        "FAIL",
        1.0,
        5.0,
    )
    assert (second["DE"]["status"], second["DE"]["values"]["upper bound"]) == ("PASS", 12.0)


def test_an_anomalous_segment_is_left_out_of_its_own_baseline_only(tmp_path):
    # a warning: the runs pass, so only the check's findings keep a value out of a baseline
    _day(tmp_path, "2026-01-01", ["FR"] * 3 + ["DE"] * 10, "warn ")
    _day(tmp_path, "2026-01-02", ["FR"] * 9 + ["DE"] * 11, "warn ")  # FR anomalous (9 vs [1, 5]), DE not
    third = _by_segment(_day(tmp_path, "2026-01-03", ["FR"] * 4 + ["DE"] * 10, "warn "))
    assert third["FR"]["values"]["upper bound"] == 5.0  # from 01-01's 3: 01-02's 9 left out
    assert third["DE"]["values"]["upper bound"] == 13.0  # from 01-02's 11


def test_a_new_segment_is_skipped_saying_so_and_a_vanished_one_is_a_warning_row(tmp_path):
    _day(tmp_path, "2026-01-01", ["FR"] * 3 + ["DE"] * 2)
    check = _day(tmp_path, "2026-01-02", ["FR"] * 3 + ["ES"])
    segments = _by_segment(check)
    assert segments["ES"]["status"] == "SKIP"
    assert segments["ES"]["skipped"].startswith("a new segment, not in the run before: not evaluated")
    assert segments["DE"]["status"] == "WARN" and "not in this one's country" in segments["DE"]["values"]["vanished"]
    assert check["status"] == "PASS" and check["values"]["segments vanished"] == '"DE"'
