"""Several null markers, ``nullValue = ["n/a", "-"]``, on both engines: each is NULL wherever it
stands in a column of declared type, text columns included; any other text that does not parse
is counted. Spark's reader takes one marker: the others are mapped after it (typed_text.py).
Expected values by hand."""

from __future__ import annotations

from gryph.client import load_suite, run

DATA = (
    "id,price,day,note\n"
    "1,2.5,2024-01-05,a\n"  # row 1: clean
    "2,n/a,2024-01-06,-\n"  # row 2: both markers NULL, in a text column too
    "3,-,n/a,n/a\n"  # row 3: markers in every column but id
    "4,NA,2024-01-08,\n"  # row 4: 'NA' is no marker here: a bad price; an empty field is NULL
    "5,,-,b\n"  # row 5
)
ROWS = [
    (1, 2.5, "2024-01-05", "a"),
    (2, None, "2024-01-06", None),
    (3, None, None, None),
    (4, None, "2024-01-08", None),
    (5, None, None, "b"),
]


def _run(engine, folder, declaration: str, data: str = DATA):
    (folder / "data.csv").write_text(data, encoding="utf-8")
    suite = folder / "s.dq"
    suite.write_text(f"{declaration}\nprofiling rows: select * from d\n", encoding="utf-8")
    return run(load_suite(str(suite)), engine)


def test_several_markers_are_null_in_every_declared_column(dq_engine, tmp_path):
    declaration = 'source d = csv("data.csv", nullValue = ["n/a", "-"], schema = "id bigint, price double, day date, note string")'
    result = _run(dq_engine, tmp_path, declaration)
    rows = [
        (r["id"], r["price"], None if r["day"] is None else str(r["day"]), r["note"]) for r in result.metrics["rows"]
    ]
    assert sorted(rows) == ROWS
    assert result.malformed_values == {
        "d": {"price": {"type": "double", "malformed": 1, "examples": [{"row": 4, "value": "NA"}]}}
    }


def test_one_marker_in_a_list_is_the_one_marker_of_inferred_types(dq_engine, tmp_path):
    result = _run(dq_engine, tmp_path, 'source d = csv("data.csv", nullValue = ["NA"])', "id,price\n1,NA\n2,3.5\n")
    assert sorted(result.metrics["rows"], key=lambda r: r["id"]) == [{"id": 1, "price": None}, {"id": 2, "price": 3.5}]
