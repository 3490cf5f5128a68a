"""JSON and array functions on DuckDB: the values the Spark executor tests expect too."""

from __future__ import annotations

import pyarrow as pa
import pytest

from gryph.compiler.plan import Call, Field, Fn, Lambda, Literal, Variable
from gryph.compiler.plan.data_types import BOOLEAN, INTEGER, JSON, STRING, array

N = None
ROWS = pa.table(
    {
        "arr": pa.array([[1, 2, 3], [], None, [4]], pa.list_(pa.int64())),
        "j": pa.array(['{"a": [1, {"b": "x"}, "s"]}', '{"a": {}}', None, "not json"], pa.string()),
    }
)
arr, j, e = Field("arr", array(INTEGER)), Field("j", STRING), Variable("e", INTEGER)
ARR = array(INTEGER)
JSON_A = Call(Fn.JSON_FIELD, (j, Literal("a", STRING)), JSON)


def L(value):
    return Literal(value, INTEGER)


CASES = {
    "array_map": (
        Call(Fn.ARRAY_MAP, (arr, Lambda("e", Call(Fn.MULTIPLY, (e, L(10)), INTEGER), INTEGER)), ARR),
        [[10, 20, 30], [], N, [40]],
    ),
    "array_filter": (
        Call(Fn.ARRAY_FILTER, (arr, Lambda("e", Call(Fn.GT, (e, L(1)), BOOLEAN), BOOLEAN)), ARR),
        [[2, 3], [], N, [4]],
    ),
    "flatten": (
        Call(Fn.FLATTEN, (Call(Fn.ARRAY_MAP, (arr, Lambda("e", arr, ARR)), array(ARR)),), ARR),
        [[1, 2, 3] * 3, [], N, [4]],
    ),
    "slice": (Call(Fn.SLICE, (arr, L(1), L(-1)), ARR), [[2, 3], [], N, []]),
    "json_parse": (Call(Fn.JSON_PARSE, (j,), JSON), ['{"a":[1,{"b":"x"},"s"]}', '{"a":{}}', N, N]),
    "json_field": (JSON_A, ['[1,{"b":"x"},"s"]', "{}", N, N]),
    "json_items": (Call(Fn.JSON_ITEMS, (JSON_A,), array(JSON)), [["1", '{"b":"x"}', "s"], N, N, N]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_json_and_array_function(bench, name):
    expr, expected = CASES[name]
    assert bench.values(expr, ROWS) == expected
