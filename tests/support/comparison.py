"""The one comparison of an engine's values with the values a test worked out by hand.

The contract (the design's "identical metrics", section 3), ``expected`` leading:

- a map: the same keys, each value compared by this contract;
- a list: the same length, element by element in order (``ordered=False``: as multisets);
- a float: a float; NaN equals NaN only, an infinity itself only, any other value within a relative
  ``tolerance`` (1e-9, since sums may add in any order), within 1e-12 when 0.0 is expected;
  ``tolerance=0`` asks for the very same float;
- anything else (integers, booleans, None, strings, decimals, dates, tuples): equal and of the
  same type, so ``1`` is not ``True`` nor ``1.0``.
"""

from __future__ import annotations

import json
import math

RELATIVE = 1e-9


def mismatch(actual, expected, path: str = "value", ordered: bool = True, tolerance: float = RELATIVE) -> str | None:
    """Where and how ``actual`` differs from ``expected``, or None when it does not."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected a map, got {actual!r}"
        if set(actual) != set(expected):
            return f"{path}: keys differ: got {sorted(actual, key=str)}, expected {sorted(expected, key=str)}"
        found = (mismatch(actual[key], expected[key], f"{path}.{key}", tolerance=tolerance) for key in expected)
        return next((why for why in found if why), None)
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{path}: expected a list, got {actual!r}"
        if len(actual) != len(expected):
            return f"{path}: {len(actual)} items, expected {len(expected)}: {actual!r}"
        if not ordered:
            actual, expected = sorted(actual, key=_sort_key), sorted(expected, key=_sort_key)
        pairs = enumerate(zip(actual, expected, strict=True))
        found = (mismatch(a, e, f"{path}[{i}]", tolerance=tolerance) for i, (a, e) in pairs)
        return next((why for why in found if why), None)
    if type(actual) is not type(expected):
        return f"{path}: expected {expected!r} ({type(expected).__name__}), got {actual!r} ({type(actual).__name__})"
    if isinstance(expected, float) and not _same_float(actual, expected, tolerance):
        return f"{path}: expected {expected!r}, got {actual!r}"
    if not isinstance(expected, float) and actual != expected:
        return f"{path}: expected {expected!r}, got {actual!r}"
    return None


def same(actual, expected, path: str = "value", ordered: bool = True, tolerance: float = RELATIVE) -> bool:
    """True when ``actual`` meets the contract; otherwise an AssertionError that says where it does not.

    Raising (rather than returning False) keeps a bare ``same(...)`` statement an assertion too.
    """
    why = mismatch(actual, expected, path, ordered, tolerance)
    if why:
        raise AssertionError(why)
    return True


def _same_float(actual: float, expected: float, tolerance: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or tolerance == 0:
        return actual == expected
    return math.isclose(actual, expected, rel_tol=tolerance, abs_tol=0.0 if expected else 1e-12)


def _sort_key(value) -> str:
    """A total order over rows (for multiset comparison): NaN and None included."""
    return json.dumps(value, sort_keys=True, default=str, allow_nan=True)
