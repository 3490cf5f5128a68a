"""The one comparison's contract (tests/support/comparison.py), case by case."""

from __future__ import annotations

import math

import pytest

from tests.support.comparison import mismatch, same

NAN = float("nan")


@pytest.mark.parametrize(
    "actual,expected",
    [
        (NAN, NAN),
        (math.inf, math.inf),
        (1.0 + 1e-10, 1.0),  # within the relative 1e-9
        (1e-13, 0.0),  # 0.0 expected: within 1e-12
        (-0.0, 0.0),
        ({"a": [1, None, "x"]}, {"a": [1, None, "x"]}),
    ],
)
def test_what_counts_as_the_same(actual, expected):
    assert mismatch(actual, expected) is None
    assert same(actual, expected)


@pytest.mark.parametrize(
    "actual,expected",
    [
        (None, NAN),  # NULL is not NaN
        (NAN, 1.0),
        (1.0 + 1e-8, 1.0),
        (2e-15, 1e-15),  # relative, even for tiny values
        (1, 1.0),  # an integer where a float is expected
        (1.0, 1),
        (True, 1),
        ("1", 1),
        (-math.inf, math.inf),
        ([1, 2], [1, 2, 3]),
        ({"a": 1}, {"a": 1, "b": 2}),
    ],
)
def test_what_differs(actual, expected):
    assert mismatch(actual, expected) is not None
    with pytest.raises(AssertionError):
        same(actual, expected)


def test_the_message_says_where():
    assert mismatch({"r": [1, 2.5]}, {"r": [1, 2.0]}, "metrics") == "metrics.r[1]: expected 2.0, got 2.5"


def test_zero_tolerance_asks_for_the_very_float():
    assert mismatch(1.0 + 1e-15, 1.0, tolerance=0) is not None
    assert mismatch(1e-13, 0.0, tolerance=0) is not None
    assert mismatch([NAN, 2.0], [NAN, 2.0], tolerance=0) is None


def test_unordered_lists_compare_as_multisets():
    assert mismatch([2, None, 1, 1], [1, None, 1, 2], ordered=False) is None
    assert mismatch([2, 2, 1], [1, 1, 2], ordered=False) is not None
    assert mismatch([2, 1], [1, 2]) is not None  # ordered unless told
