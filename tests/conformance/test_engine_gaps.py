"""Features one engine lacks run on the other with hand-derived values; the gap is declared."""

from __future__ import annotations

import contextlib
import json

import pytest

from gryph.compiler.plan import Call, Field, Fn, Literal
from gryph.compiler.plan.data_types import DOUBLE, INTEGER, JSON, STRING
from tests.conformance.engine_gaps import engine_gap


def test_round_with_a_column_scale(bench):
    value, digits = Field("x", DOUBLE), Field("n", INTEGER)
    with engine_gap(bench.engine, "round with a column scale"):
        got = bench.values(
            Call(Fn.ROUND, (value, digits), DOUBLE), {"x": [2.345, 2.345, -2.5, None], "n": [2, 0, 0, 1]}
        )
        assert got == [2.35, 2.0, -3.0, None]  # half away from zero


@pytest.mark.parametrize(
    "name,expected",
    [
        ('a"b', "1"),
        ("q['x']", '{"k":1}'),
        ("back\\slash", "s"),
        ("x/y", "[1,2]"),
        ("t~0", "true"),
    ],
)
def test_json_fields_with_any_name(bench, name, expected):
    doc = json.dumps({'a"b': 1, "q['x']": {"k": 1}, "back\\slash": "s", "x/y": [1, 2], "t~0": True, "a": 0})
    field = Call(Fn.JSON_FIELD, (Call(Fn.JSON_PARSE, (Field("d", STRING),), JSON), Literal(name, STRING)), JSON)
    breaks_path = any(c in name for c in "'\"\\[]")
    with (
        engine_gap(bench.engine, "json field name with quotes or brackets") if breaks_path else contextlib.nullcontext()
    ):
        assert bench.values(field, {"d": [doc]}) == [expected]
