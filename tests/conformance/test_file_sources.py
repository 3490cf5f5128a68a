"""CSV and JSON files read the same on both engines: quoting, inferred types, mixed JSON fields."""

from __future__ import annotations

import math

from gryph.compiler.sources.source_specs import SourceSpec
from tests.support.plan_helpers import read, run_one

# A quote inside a quoted field is doubled; a quoted field may hold the delimiter; an empty
# field is NULL; a number column with an empty field stays a number column.
CSV = 'id,name,score\n1,"Smith, J",2.5\n2,"say ""hi""",\n3,plain,NaN\n,"",-1\n'
EXPECTED = [
    {"id": 1, "name": "Smith, J", "score": 2.5},
    {"id": 2, "name": 'say "hi"', "score": None},
    {"id": 3, "name": "plain", "score": math.nan},
    {"id": None, "name": None, "score": -1.0},
]


def loaded(engine, folder, name: str, file_format: str, text: str) -> tuple[list[tuple[str, str]], list[dict]]:
    """Each column's name and type kind, and the rows, of ``text`` written as a file and read back."""
    path = folder / f"{name}.{file_format}"
    path.write_text(text, encoding="utf-8")
    spec = SourceSpec(name, file_format, paths=(str(path),))
    relation = read(engine, spec)
    return [(c.name, c.dtype.kind.value) for c in relation.schema.columns], run_one(engine, relation, {name: spec})


def test_quoted_fields_and_inferred_types(dq_engine, tmp_path):
    types, rows = loaded(dq_engine, tmp_path, "people", "csv", CSV)
    assert types == [("id", "integer"), ("name", "string"), ("score", "double")]
    assert [r for r in rows if r["id"] != 3] == [r for r in EXPECTED if r["id"] != 3]
    nan_row = next(r for r in rows if r["id"] == 3)
    assert nan_row["name"] == "plain" and math.isnan(nan_row["score"])


# Types inferred by Spark's rules on both engines: every non-empty value of a column must fit
INFERRED_CSV = (
    "zip,flag,ratio,day,at,mixed,big\n"
    "007,yes,1.5d,2024-01-05,2024-01-05 10:11:12,a,99999999999999999999\n"
    "010,no,Inf,2024-02-29,2024-01-05T08:00:00+02:00,1,1\n"
    ",,,,,,\n"
)
INFERRED_TYPES = [
    ("zip", "integer"),
    ("flag", "string"),
    ("ratio", "double"),
    ("day", "date"),
    ("at", "timestamp"),
    ("mixed", "string"),
    ("big", "decimal"),
]
INFERRED_ROWS = [
    {
        "zip": 7,
        "flag": "yes",
        "ratio": 1.5,
        "day": "2024-01-05",
        "at": "2024-01-05 10:11:12",
        "mixed": "a",
        "big": 99999999999999999999,
    },
    {
        "zip": 10,
        "flag": "no",
        "ratio": math.inf,
        "day": "2024-02-29",
        "at": "2024-01-05 06:00:00",
        "mixed": "1",
        "big": 1,
    },
    {name: None for name, _ in INFERRED_TYPES},
]


def test_types_inferred_as_spark_infers_them(dq_engine, tmp_path):
    types, rows = loaded(dq_engine, tmp_path, "inferred", "csv", INFERRED_CSV)
    assert types == INFERRED_TYPES
    assert rows == INFERRED_ROWS


# JSON lines: a field whose values differ in type is text (a string as itself, a number as its
# text), and so is a field that is always null
JSON_LINES = (
    '{"mixed": 1, "none": null, "n": 1}\n{"mixed": "str", "none": null, "n": 2}\n{"mixed": 2.5, "none": null, "n": 3}\n'
)


def test_json_fields_of_mixed_types_are_text(dq_engine, tmp_path):
    types, rows = loaded(dq_engine, tmp_path, "mixed", "json", JSON_LINES)
    assert types == [("mixed", "string"), ("n", "integer"), ("none", "string")]
    assert sorted(rows, key=lambda r: r["n"]) == [
        {"mixed": "1", "n": 1, "none": None},
        {"mixed": "str", "n": 2, "none": None},
        {"mixed": "2.5", "n": 3, "none": None},
    ]
