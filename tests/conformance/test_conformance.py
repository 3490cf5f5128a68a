"""Every conformance case (``cases/*.json``), on DuckDB and on a real Spark Connect server.

Each case holds its input tables, the rules in native ``.dq`` syntax (sources come in as
frames) and the metrics derived by hand from Griffin's semantics, with a ``why`` per value.
"""

from __future__ import annotations

import pytest

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table, decode_expected, load_cases, why_keys, with_extra_details
from tests.support.comparison import same

CASES = load_cases()


def _xfail_marks(case: dict) -> list:
    reason = case.get("xfail")
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


PARAMS = [pytest.param(case, id=case_id, marks=_xfail_marks(case)) for case_id, case in CASES]


def run_case(case: dict, engine):
    frames = {name: arrow_table(spec) for name, spec in case["tables"].items()}
    return run(with_extra_details(load_suite(case["suite"], frames), case), engine)


@pytest.mark.parametrize("case", PARAMS)
def test_case(case, dq_engine):
    check_case(case, dq_engine)


HISTOGRAM_PARAMS = [
    p for p in PARAMS if any(f"{kind} " in p.values[0]["suite"] for kind in ("uniqueness", "distinctness"))
]


@pytest.mark.parametrize("case", HISTOGRAM_PARAMS)
def test_histogram_case_on_spark_reading_per_scan(case, spark_rereading_engine):
    """Spark's other way to count keys: every key set of a source in one GROUPING SETS job."""
    check_case(case, spark_rereading_engine)


def check_case(case: dict, engine) -> None:
    result = run_case(case, engine)
    expected = decode_expected(case["expected"])
    ordered = set(case.get("ordered", ()))
    assert set(result.metrics) == set(expected), f"rules: got {sorted(result.metrics)}"
    for rule, metrics in expected.items():
        same(result.metrics[rule], metrics, f"metrics.{rule}", ordered=rule in ordered or not isinstance(metrics, list))
    for rule, record in case.get("records", {}).items():
        got = result.records.get(rule)
        assert got is not None, f"no records for {rule}: {result.records}"
        if "output" in record:
            assert got["output"] == record["output"]
        same(got["count"], record["count"], f"records.{rule}.count")
        if "sample" in record:
            same(got["sample"], decode_expected(record["sample"]), f"records.{rule}.sample", ordered=False)


@pytest.mark.parametrize("case_id,case", CASES, ids=[c for c, _ in CASES])
def test_case_explains_every_expected_value(case_id, case):
    """The discipline of the case files: every expected value says how it was derived."""
    missing = why_keys(case["expected"]) - set(case.get("why", {}))
    assert not missing, f"{case_id}: no 'why' for {sorted(missing)}"
    assert case["tables"], f"{case_id}: no input tables"


def test_cases_cover_every_dq_type_and_detail_option():
    kinds = {
        "accuracy",
        "completeness",
        "uniqueness",
        "distinctness",
        "timeliness",
        "profiling",
        "freshness",
        "validity",
    }
    text = "\n".join(case["suite"] for _, case in CASES)
    for kind in kinds:
        assert f"{kind} " in text, f"no {kind} case"
    details = {
        "accuracy": ("miss", "total", "matched", "matchedFraction"),
        "completeness": ("total", "incomplete", "complete"),
        "uniqueness": ("total", "unique", "dup", "num", "duplication.array"),
        "distinctness": (
            "total",
            "distinct",
            "dup",
            "num",
            "duplication.array",
            "with.accumulate",
            "record.enable",
            "accu_dup",
        ),
        "timeliness": (
            "total",
            "avg",
            "latency",
            "threshold",
            "step",
            "step.size",
            "count",
            "percentile",
            "percentile.values",
        ),
        "freshness": ("total", "newest", "age_ms", "warn", "error"),
        "validity": ("total", "valid", "invalid"),
    }
    suites = [case["suite"] for _, case in CASES]
    for kind, keys in details.items():
        for key in keys:
            assert any(f"{kind} " in s and f"{key} =" in s for s in suites), f"no {kind} case uses the option {key}"
    assert any("error.confs" in extra for _, c in CASES for extra in c.get("extra_details", {}).values())


def test_cases_hold_the_awkward_values():
    """NULLs, NaN, empty strings, empty tables, unicode and odd column names all appear."""
    import json

    blob = json.dumps([case["tables"] for _, case in CASES], ensure_ascii=False)
    assert "null" in blob and '"NaN"' in blob and '""' in blob
    assert any(not spec["rows"] for _, c in CASES for spec in c["tables"].values())
    assert any(ord(ch) > 127 for ch in blob)
    names = {name for _, c in CASES for spec in c["tables"].values() for name, _ in spec["columns"]}
    assert {"first name", "select", "a`b"} <= names
