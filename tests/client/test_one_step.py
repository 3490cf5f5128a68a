"""Record samples in the metrics' step, where an engine finds that cheaper: the same results.

A conditional sample (a filter of one source) normally waits for its rule's count and runs only
when the count is positive. An engine whose ``one_step`` says so gets every query in one plan;
a sample of no records then simply has no rows.
"""

from __future__ import annotations

import pytest

from gryph.client.run.runner import run
from gryph.local_backend.engine import DuckDBEngine

SUITE = """suite steps
source people = csv("people.csv", schema = "id bigint, email string, born timestamp, seen timestamp")
completeness contact on people: email
completeness born_known on people: born
timeliness age on people: born, seen with threshold = 1h
"""
# by hand: emails a, NULL, é; every birth known; latencies 30 min, 2 h and 1 h 1 s
PEOPLE = "id,email,born,seen\n1,a,2024-01-01 00:00:00,2024-01-01 00:30:00\n2,,2024-01-01 00:00:00,2024-01-01 02:00:00\n3,é,2024-01-02 00:00:00,2024-01-02 01:00:01\n"


class Counting(DuckDBEngine):
    """DuckDB, with the plans it runs written down and one_step answered as told."""

    def __init__(self, one_step: bool) -> None:
        super().__init__()
        self.answer, self.plans = one_step, []

    def one_step(self, plan, sources) -> bool:
        return self.answer

    def run(self, plan, sources):
        self.plans.append([q.name for q in plan.queries])
        return super().run(plan, sources)


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "people.csv").write_text(PEOPLE, encoding="utf-8")
    path = tmp_path / "steps.dq"
    path.write_text(SUITE, encoding="utf-8")
    return path


@pytest.mark.parametrize("one_step", [False, True])
def test_samples_are_the_same_in_one_step_or_two(suite, one_step):
    engine = Counting(one_step)
    try:
        result = run(suite, engine)
    finally:
        engine.close()
    # two steps: the filters' samples wait, and only those with records run (contact, age)
    assert len(engine.plans) == (1 if one_step else 2)
    if not one_step:
        assert len(engine.plans[1]) == 2
    assert result.records["contact"]["sample"] == [
        {"id": 2, "email": None, "born": "2024-01-01 00:00:00", "seen": "2024-01-01 02:00:00"}
    ]
    assert result.records["contact"]["count"] == 1
    assert result.records["born_known"]["count"] == 0 and not result.records["born_known"].get("sample")
    late = sorted(row["id"] for row in result.records["age"]["sample"])
    assert late == [2, 3] and result.records["age"]["count"] == 2
