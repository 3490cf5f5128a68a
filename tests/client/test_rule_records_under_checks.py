"""A failing check that reads a rule's metric shows the rows that rule flagged under it (issue 40:
the bad value appears in text, JSON and JUnit), from the rule's own sample: no query more."""

from __future__ import annotations

import polars as pl

from gryph.client import run
from gryph.client.outputs.gate import to_junit
from gryph.client.outputs.text import to_text

SUITE = """suite species
validity ok on t: species in ("Adelie", "Gentoo") as `known species`
completeness filled on t: species
check "valid": metrics["ok"]["invalid"] == 0
check "filled": metrics["filled"]["incomplete"] == 0
check "counted": metrics["ok"]["total"] == 4
"""


def test_a_failing_check_on_a_rule_metric_shows_the_rows_it_flagged():
    # 4 rows: "Gentu" is the one invalid species (NULL is invalid too: it is not in the list) and
    # the NULL the one incomplete row; "counted" passes and shows nothing
    frame = pl.DataFrame({"species": ["Adelie", "Gentu", "Gentoo", None], "n": [1, 2, 3, 4]})
    result = run(SUITE, frames={"t": frame})
    valid, filled, counted = result.checks
    assert not valid.passed and not filled.passed and counted.passed and counted.failing_rows == {}
    (sample,) = valid.failing_rows.values()
    assert sample["source"] == "t" and sample["count"] == 2
    assert sorted(str(row["species"]) for row in sample["rows"]) == ["Gentu", "None"]
    (incomplete,) = filled.failing_rows.values()
    assert incomplete["count"] == 1 and [row["n"] for row in incomplete["rows"]] == [4]
    assert "Gentu" in to_junit(result) and "Gentu" in to_text(result)
    assert "Gentu" in str(result.to_dict()["check_details"][0]["failing_rows"])
