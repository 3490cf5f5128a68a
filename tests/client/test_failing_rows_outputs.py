"""A failing check's rows in every output a run writes: the text report, JSON, JUnit (the HTML
report: test_html_report.py). Rows and counts worked out by hand from the CSV below."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from gryph.client.cli.main import main

CSV = "species,island\nAdelie,Dream\nGentu,Biscoe\nGentoo,Biscoe\nGentu,Dream\nÄdelie,Dream\nAdelie,\n"
SUITE = """source penguins = csv("penguins.csv")
check "species known": rows(penguins where species not in ('Adelie', 'Gentoo')) == 0
check "islands filled": rows(penguins where island is null) == 0
pass when all
"""


def _run(tmp_path: Path, capsys, *options: str) -> tuple[int, str]:
    (tmp_path / "penguins.csv").write_text(CSV, encoding="utf-8")
    (tmp_path / "s.dq").write_text(SUITE, encoding="utf-8")
    code = main(["run", str(tmp_path / "s.dq"), "--no-history", *options])
    return code, capsys.readouterr().out


def test_the_text_report_shows_the_rows_and_top_values(tmp_path: Path, capsys):
    code, out = _run(tmp_path, capsys, "--sample", "2")
    assert code == 1
    # Gentu twice, Ädelie once: 3 rows, the first 2 by species then island (Biscoe before Dream)
    expected = [
        "species known: 3 rows of penguins where species not in ('Adelie', 'Gentoo')",
        "species  island",
        "-------  ------",
        "Gentu    Biscoe",
        "Gentu    Dream",
        "... 1 more",
        "most frequent species: Gentu (2), Ädelie (1)",
        "",
        "islands filled: 1 row of penguins where island is null",
        "species  island",
        "-------  ------",
        "Adelie   NULL",
        "most frequent island: NULL (1)",
    ]
    lines = out.splitlines()
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected


def test_json_and_junit_carry_them(tmp_path: Path, capsys):
    junit = tmp_path / "j.xml"
    code, out = _run(tmp_path, capsys, "--format", "json", "--junit", str(junit))
    assert code == 1
    details = {c["name"]: c for c in json.loads(out)["check_details"]}
    shown = details["species known"]["failing_rows"]["rows(penguins where species not in ('Adelie', 'Gentoo'))"]
    assert shown["count"] == 3
    assert shown["rows"] == [
        {"species": "Gentu", "island": "Biscoe"},
        {"species": "Gentu", "island": "Dream"},
        {"species": "Ädelie", "island": "Dream"},
    ]
    assert shown["top_values"] == [{"value": "Gentu", "count": 2}, {"value": "Ädelie", "count": 1}]
    failures = {
        case.get("name"): case.find("failure").text  # type: ignore[union-attr]
        for case in ET.parse(junit).getroot().iter("testcase")
    }
    assert "Gentu    Dream" in failures["species known"]
    assert "most frequent species: Gentu (2), Ädelie (1)" in failures["species known"]
    assert "Adelie   NULL" in failures["islands filled"]


def test_no_sample_asked_shows_no_rows(tmp_path: Path, capsys):
    code, out = _run(tmp_path, capsys, "--sample", "0")
    assert code == 1 and "most frequent" not in out and "rows of penguins" not in out
