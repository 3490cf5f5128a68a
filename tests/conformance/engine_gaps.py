"""What an engine does not run, declared (as ibis marks ``notimpl``) rather than left untested.

A test over a declared gap expects that engine to refuse with ``UnsupportedError``; when the
engine learns it, the test fails until the declaration goes.
"""

from __future__ import annotations

import contextlib

import pytest

from gryph.compiler.errors import UnsupportedError

GAPS: dict[str, dict[str, str]] = {
    "spark": {
        "round with a column scale": "Spark's round takes its number of digits as a constant only",
        "json field name with quotes or brackets": "get_json_object reads $['name'] up to the first quote "
        "or bracket in the name",
    },
    "duckdb": {},
}


def engine_gap(engine, feature: str):
    """The block runs ``feature`` on ``engine``: where it is a declared gap, it must be refused."""
    assert any(feature in gaps for gaps in GAPS.values()), f"undeclared gap {feature!r}"
    if feature in GAPS[engine.name]:
        return pytest.raises(UnsupportedError, match=f"not supported on (the )?{engine.name}")
    return contextlib.nullcontext()
