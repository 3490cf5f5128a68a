"""JSON lines of declared types whose values are of mixed JSON types, on both engines.

Each field is read as text as Spark reads a field it is told is a string (a string as itself, a
number, boolean, object or list as its compact JSON text, null or a missing key as NULL), then
cast as the plan casts text (Spark's ``try_cast``): a value that does not parse is NULL and
counted with its row, exactly as for a csv (test_declared_types.py). Expected values by hand.

One declared difference: a non-string value's text is as the file writes it on Spark, and as
DuckDB renders the JSON on DuckDB (compact, numbers in their shortest form); the objects and
numbers of the cases common to both are written so in the file.
"""

from __future__ import annotations

from gryph.client import load_suite, run

SCHEMA = "id bigint, price double, ok boolean, note string"
LINES = (
    '{"id": 1, "price": 2.5, "ok": true, "note": "plain"}\n'  # row 1: clean
    '{"id": "2", "price": "n/a", "ok": "no", "note": 7}\n'  # row 2: "2" is 2; 'n/a' no price; 7 is the text '7'
    '{"id": 3, "price": {"a":1}, "ok": null, "note": {"k":"v"}}\n'  # row 3: an object is no price
    '{"id": 4}\n'  # row 4: missing keys are NULL, never malformed
    '{"id": "x5", "price": "7", "ok": [1], "note": null}\n'  # row 5: 'x5' no id, a list no boolean
    '{"id": 6, "price": -0.5, "ok": "maybe", "note": true}\n'  # row 6: 'maybe' no boolean
)
ROWS = [
    (1, 2.5, True, "plain"),
    (2, None, False, "7"),
    (3, None, None, '{"k":"v"}'),
    (4, None, None, None),
    (None, 7.0, None, None),
    (6, -0.5, None, "true"),
]
MALFORMED = {
    "id": {"type": "integer", "malformed": 1, "examples": [{"row": 5, "value": "x5"}]},
    "price": {
        "type": "double",
        "malformed": 2,
        "examples": [{"row": 2, "value": "n/a"}, {"row": 3, "value": '{"a":1}'}],
    },
    "ok": {
        "type": "boolean",
        "malformed": 2,
        "examples": [{"row": 5, "value": "[1]"}, {"row": 6, "value": "maybe"}],
    },
}


def _run(engine, folder, checks: str = ""):
    (folder / "data.json").write_text(LINES, encoding="utf-8")
    suite = folder / "s.dq"
    suite.write_text(
        f'source d = json("data.json", schema = "{SCHEMA}")\nprofiling rows: select id, price, ok, note from d\n{checks}',
        encoding="utf-8",
    )
    return run(load_suite(str(suite)), engine)


def test_json_values_not_of_their_type_are_null_and_counted(dq_engine, tmp_path):
    checks = (
        'check "prices parse": metrics["source:d"]["malformed_by_column"]["price"] == 0\n'
        'check "few bad values": metrics["source:d"]["malformed"] == 5\n'
        'check "notes are text": metrics["source:d"]["malformed_by_column"]["note"] == 0\n'
    )
    result = _run(dq_engine, tmp_path, checks)
    rows = [tuple(row[c] for c in ("id", "price", "ok", "note")) for row in result.metrics["rows"]]
    assert sorted(rows, key=str) == sorted(ROWS, key=str)
    assert result.malformed_values == {"d": MALFORMED}
    assert {c.name: c.passed for c in result.checks} == {
        "prices parse": False,
        "few bad values": True,
        "notes are text": True,
    }


def test_json_rows_are_numbered_in_their_own_files(dq_engine, tmp_path):
    # by hand: a.json's record 2 'x'; b.json's records 1 'bad' and 3 true (a boolean is no number)
    (tmp_path / "a.json").write_text('{"v": 1}\n{"v": "x"}\n', encoding="utf-8")
    (tmp_path / "b.json").write_text('{"v": "bad"}\n{"v": 2}\n{"v": true}\n', encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source d = json("a.json", "b.json", schema = "v bigint")\nprofiling rows: select v from d\n', encoding="utf-8"
    )
    result = run(load_suite(str(suite)), dq_engine)
    assert sorted(row["v"] for row in result.metrics["rows"] if row["v"] is not None) == [1, 2]
    assert result.malformed_values == {
        "d": {
            "v": {
                "type": "integer",
                "malformed": 3,
                "examples": [{"row": 1, "value": "bad"}, {"row": 2, "value": "x"}, {"row": 3, "value": "true"}],
            }
        }
    }


def test_a_non_string_value_read_as_text_is_as_written_on_spark_and_compact_on_duckdb(dq_engine, tmp_path):
    (tmp_path / "data.json").write_text('{"note": {"k":  "v"}}\n{"note": 2.50}\n', encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text('source d = json("data.json", schema = "note string")\nprofiling rows: select note from d\n')
    notes = sorted(row["note"] for row in run(load_suite(str(suite)), dq_engine).metrics["rows"])
    assert notes == (["2.50", '{"k":  "v"}'] if dq_engine.name == "spark" else ["2.5", '{"k":"v"}'])
