"""Text output as a person reads it: durations with units, numbers without e-notation, Griffin's
profiling as a table, record headers without the rule's name twice; JSON keeps the raw numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gryph.client.outputs.readable_values import duration, number
from tests.support.gryph_cli import ROOT, gryph


@pytest.mark.parametrize(
    "value, shown",
    [
        (2474731.52, "2474731.52"),
        (2474730.0, "2474730"),  # was 2.47473e+06
        (0.98974, "0.98974"),  # a fraction just under a 0.99 bound stays visibly under it
        (0.1 + 0.2, "0.3"),  # 0.30000000000000004: six significant digits
        (1 / 3, "0.333333"),
        (93.77349674, "93.7735"),
        (123456789.125, "123456789.12"),  # the whole digits and two decimals (round half even)
        (1234567.26 + 1240164.26, "2474731.52"),
        (-1234567.5, "-1234567.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),  # beyond, the exponent stays
        (1.5e-7, "0.00000015"),
        (1e-12, "1e-12"),
        (0.0, "0"),
        (-0.0, "0"),
        (float("nan"), "NaN"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
    ],
)
def test_numbers_without_e_notation(value, shown):
    assert number(value) == shown


@pytest.mark.parametrize(
    "ms, shown",
    [
        (0, "0 ms"),
        (250, "250 ms"),
        (0.5, "0.5 ms"),
        (999.5, "999.5 ms"),
        (1500, "1.5 s"),
        (60_000, "1 min"),
        (219_864, "3 min 39.864 s"),
        (7_500_000, "2 h 5 min"),
        (86_401_000, "1 d 1 s"),
        (-200_000, "-3 min 20 s"),
        (float("nan"), "NaN"),
    ],
)
def test_durations_with_units(ms, shown):
    assert duration(ms) == shown


# latencies 250 ms, 1.5 s and 2 h 5 min (7,500,000 ms); a source column starting with "latency"
# makes the late records' column "_latency"
DATA = """id,amount,latency_note,created,shipped
1,0.0,a,2026-01-01 00:00:00,2026-01-01 00:00:00.250
2,1234567.26,b,2026-01-01 00:00:00,2026-01-01 00:00:01.500
3,1240164.26,c,2026-01-01 00:00:00,2026-01-01 02:05:00
"""
SUITE = """source o = csv("o.csv", schema = "id bigint, amount double, latency_note string, created timestamp, shipped timestamp")
timeliness t on o: created, shipped with threshold = 1s, avg = "mean_latency", percentile.values = (0.5)
measure "total": select sum(amount) from o
"""


def test_a_run_in_text_and_json(tmp_path: Path):
    (tmp_path / "o.csv").write_text(DATA)
    (tmp_path / "s.dq").write_text(SUITE)
    text = gryph("run", "s.dq", "--no-history", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    metric = {tuple(re.split(r"\s{2,}", line)[1:]) for line in text.stdout.splitlines() if line.startswith("t (")}
    # avg: (250 + 1500 + 7,500,000) / 3 = 2,500,583.3, truncated: 41 min 40.583 s; the median:
    # the least latency with at least half the rows at or under it, 1500
    assert metric == {("total", "3"), ("mean_latency", "41 min 40.583 s"), ("percentile_50", "1.5 s")}
    assert re.search(r"^total\s+2474731\.52$", text.stdout, re.M)  # 1234567.26 + 1240164.26
    late = text.stdout.split("t: 2 records (lateRecords)\n")[1].splitlines()
    assert re.split(r"\s{2,}", late[0]) == ["id", "amount", "latency_note", "created", "shipped", "_latency"]
    assert [re.split(r"\s{2,}", line)[-1] for line in late[2:4]] == ["1.5 s", "2 h 5 min"]
    assert late[2].split()[1] == "1234567.26"

    document = json.loads(gryph("run", "s.dq", "--no-history", "--format", "json", cwd=tmp_path).stdout)
    assert document["metrics"]["t"]["mean_latency"] == 2_500_583
    assert document["metrics"]["t"]["percentile_50"] == 1500
    assert document["measure"]["total"] == pytest.approx(2474731.52, rel=1e-12)
    assert [row["_latency"] for row in document["records"]["t"]["sample"]] == [1500, 7_500_000]


def test_griffin_profiling_is_a_table_and_record_headers_are_clean():
    done = gryph("run", "examples/griffin/measures.json", "--no-history", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) < 200  # was a 230-character JSON blob in one cell
    assert re.split(r"\s{2,}", next(line for line in lines if line.startswith("profiling_measure"))) == [
        "profiling_measure (griffin.profiling)",
        "3 rows, below",
    ]
    table = lines[lines.index("profiling_measure (griffin.profiling):") + 1 :]
    assert re.split(r"\s{2,}", table[0])[:3] == ["column", "data_type", "total"]
    # the profiled columns of examples/data/users.csv: 50 rows, post_code NULL once (user 10042)
    assert [re.split(r"\s{2,}", row)[:3] for row in table[2:5]] == [
        ["user_id", "bigint", "50"],
        ["first_name", "string", "50"],
        ["post_code", "bigint", "50"],
    ]
    assert "completeness_measure: 1 record" in lines  # was "completeness_measure: 1 completeness_measure"
    users = gryph("run", "examples/users.dq", "--no-history", cwd=ROOT).stdout.splitlines()
    assert "users_match: 4 records (missRecords)" in users  # Griffin's own name for them, beside
