"""A text column's drift statistics on small counts, every expected value worked out by hand or
taken from Deequ's tests of its categorical L-infinity distance (awslabs/deequ,
src/test/scala/com/amazon/deequ/KLL/KLLDistanceTest.scala, "linf_simple"): compiler/checks/drift_categories.py."""

from __future__ import annotations

import math

import pytest

from gryph.compiler.checks.drift_categories import Frequencies, category_bins, compare_categories


def _counts(categories: dict[str, int], nulls: int = 0, other: int = 0) -> Frequencies:
    return Frequencies(sum(categories.values()) + nulls + other, nulls, other, categories)


def test_linf_matches_deequs_categorical_distance():
    before = _counts({"a": 10, "b": 20, "c": 25, "d": 10, "e": 5})
    now = _counts({"a": 11, "b": 20, "c": 25, "d": 10, "e": 10})
    # Deequ: 0.06015037593984962 (e: 5/70 against 10/76 is the largest gap)
    assert compare_categories(before, now, "linf")[0] == pytest.approx(0.06015037593984962, abs=1e-15)
    renamed = _counts({"f": 11, "a": 20, "c": 25, "d": 10, "e": 10})
    # Deequ: 0.2857142857142857 (b: 20/70 before, gone now)
    statistic, _, appeared, vanished = compare_categories(before, renamed, "linf")
    assert statistic == pytest.approx(0.2857142857142857, abs=1e-15)
    assert appeared == ["f"] and vanished == ["b"]


def test_psi_of_shares_with_an_appearing_category_and_nulls():
    before = _counts({"paid": 3, "open": 1}, nulls=1)  # shares 0.6, 0.2, NULL 0.2
    now = _counts({"open": 2, "paid": 1, "refunded": 1}, nulls=1)  # 0.2, 0.4, 0.2, NULL 0.2
    statistic, bins, appeared, vanished = compare_categories(before, now, "psi")
    # paid (0.2 - 0.6) ln(0.2 / 0.6) + open (0.4 - 0.2) ln 2 + refunded (0.2 - 0.0001) ln(0.2 / 0.0001);
    # NULL and other are unchanged
    expected = -0.4 * math.log(1 / 3) + 0.2 * math.log(2) + 0.1999 * math.log(2000)
    assert statistic == pytest.approx(expected) and statistic == pytest.approx(2.097495, abs=1e-6)
    assert bins == [
        {"bin": "NULL", "before": 0.2, "now": 0.2},
        {"category": "paid", "before": 0.6, "now": 0.2},
        {"category": "open", "before": 0.2, "now": 0.4},
        {"category": "refunded", "before": 0.0, "now": 0.2},
        {"bin": "other", "before": 0.0, "now": 0.0},
    ]
    assert appeared == ["refunded"] and vanished == []


def test_the_same_shares_have_no_drift_whatever_the_row_counts():
    assert compare_categories(_counts({"x": 1, "y": 3}), _counts({"x": 10, "y": 30}), "psi")[0] == 0.0
    assert compare_categories(_counts({"x": 1, "y": 3}), _counts({"x": 10, "y": 30}), "linf")[0] == 0.0


def test_a_category_counted_in_one_run_only_joins_other_when_the_other_run_hid_it_there():
    # before kept a and b by name and counted 4 more rows as other; now keeps a and c, nothing else:
    # c's count before is unknown (maybe among the 4 others), b's now is known to be 0
    before = _counts({"a": 5, "b": 1}, other=4)
    now = _counts({"a": 5, "c": 5})
    bins, appeared, vanished = category_bins(before, now)
    assert bins == [("NULL", 0, 0), ("a", 5, 5), ("b", 1, 0), ("other", 4, 5)]
    assert appeared == [] and vanished == ["b"]


def test_a_category_named_other_or_null_is_not_those_bins():
    before = _counts({"other": 2, "NULL": 1}, nulls=1)
    statistic, bins, _, _ = compare_categories(before, before, "psi")
    assert statistic == 0.0
    assert bins == [
        {"bin": "NULL", "before": 0.25, "now": 0.25},
        {"category": "other", "before": 0.5, "now": 0.5},
        {"category": "NULL", "before": 0.25, "now": 0.25},
        {"bin": "other", "before": 0.0, "now": 0.0},
    ]
