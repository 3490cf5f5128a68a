"""A csv of declared types with values that are not of them, and a header-only csv, on both engines.

Every expected value is worked out by hand from Spark's casts of text (``try_cast``: an integer is
digits only, a double may have spaces around it, a boolean is t/true/y/yes/1 or f/false/n/no/0,
a date is a real calendar day): a value that does not parse is NULL and counted, with its row.
"""

from __future__ import annotations

import datetime as dt

from gryph.client import load_suite, run

SCHEMA = "id bigint, price double, day date, ok boolean, note string"
DIRTY = (
    "id,price,day,ok,note\n"
    "1,2.5,2024-01-05,true,plain\n"  # row 1: clean
    "2,n/a,2024-02-30,yes,x\n"  # row 2: price and day do not parse ('yes' is true)
    "x3,,2024-01-07,maybe,\n"  # row 3: id and ok do not parse; empty price and note are NULL
    "4, 7 ,2024-01-08,false,n/a\n"  # row 4: ' 7 ' is 7.0; 'n/a' is text in a text column
    "5,-,bad,0,ünï\n"  # row 5: price and day do not parse
)
DIRTY_ROWS = [
    (1, 2.5, dt.date(2024, 1, 5), True, "plain"),
    (2, None, None, True, "x"),
    (None, None, dt.date(2024, 1, 7), None, None),
    (4, 7.0, dt.date(2024, 1, 8), False, "n/a"),
    (5, None, None, False, "ünï"),
]
DIRTY_MALFORMED = {
    "id": {"type": "integer", "malformed": 1, "examples": [{"row": 3, "value": "x3"}]},
    "price": {
        "type": "double",
        "malformed": 2,
        "examples": [{"row": 2, "value": "n/a"}, {"row": 5, "value": "-"}],
    },
    "day": {
        "type": "date",
        "malformed": 2,
        "examples": [{"row": 2, "value": "2024-02-30"}, {"row": 5, "value": "bad"}],
    },
    "ok": {"type": "boolean", "malformed": 1, "examples": [{"row": 3, "value": "maybe"}]},
}


def _suite(folder, text: str, options: str = "", checks: str = "") -> str:
    (folder / "data.csv").write_text(text, encoding="utf-8")
    suite = folder / "s.dq"
    suite.write_text(
        f'source d = csv("data.csv", schema = "{SCHEMA}"{options})\n'
        "profiling rows: select id, price, day, ok, note from d\n"
        f"{checks}",
        encoding="utf-8",
    )
    return str(suite)


def _rows(result) -> list[tuple]:
    rows = result.metrics["rows"]
    return sorted(
        (tuple(row[c] for c in ("id", "price", "day", "ok", "note")) for row in rows),
        key=lambda row: (row[4] is None, str(row[4])),
    )


def test_values_not_of_their_type_are_null_and_counted_with_their_rows(dq_engine, tmp_path):
    checks = (
        'check "no bad prices": metrics["source:d"]["malformed_by_column"]["price"] == 0\n'
        'check "few bad values": metrics["source:d"]["malformed"] <= 6\n'
    )
    result = run(load_suite(_suite(tmp_path, DIRTY, checks=checks)), dq_engine)
    expected = sorted(DIRTY_ROWS, key=lambda row: (row[4] is None, str(row[4])))
    assert _rows(result) == [tuple(_as_date(v) for v in row) for row in expected]
    assert result.malformed_values == {"d": DIRTY_MALFORMED}
    assert {c.name: c.passed for c in result.checks} == {"no bad prices": False, "few bad values": True}
    assert result.checks[0].values == {'metrics["source:d"]["malformed_by_column"]["price"]': 2}


def test_a_null_marker_is_null_not_malformed(dq_engine, tmp_path):
    result = run(load_suite(_suite(tmp_path, DIRTY, options=', nullValue = "n/a"')), dq_engine)
    # 'n/a' is NULL wherever it stands (row 2's price, row 4's note): only row 5's '-' is a bad price
    assert result.malformed_values["d"]["price"] == {
        "type": "double",
        "malformed": 1,
        "examples": [{"row": 5, "value": "-"}],
    }
    assert [row["note"] for row in result.metrics["rows"] if row["id"] == 4] == [None]


def test_the_first_five_values_by_row_are_shown_and_every_one_counted(dq_engine, tmp_path):
    # rows 2, 4, ..., 16 hold a bad price (8 of them): rows 2 to 10 are shown
    lines = [f"{i},{'bad' + str(i) if i % 2 == 0 else i},2024-01-01,true,x" for i in range(1, 17)]
    result = run(load_suite(_suite(tmp_path, "id,price,day,ok,note\n" + "\n".join(lines) + "\n")), dq_engine)
    assert result.malformed_values == {
        "d": {
            "price": {
                "type": "double",
                "malformed": 8,
                "examples": [{"row": i, "value": f"bad{i}"} for i in (2, 4, 6, 8, 10)],
            }
        }
    }


def test_a_header_only_file_is_no_rows_and_its_checks_judge_it(dq_engine, tmp_path):
    checks = (
        'measure "rows": select count(*) from d\n'
        'check "has rows": measures["rows"] > 0\n'
        'check "clean": metrics["source:d"]["malformed"] == 0\n'
        "pass when all\n"
    )
    result = run(load_suite(_suite(tmp_path, "id,price,day,ok,note\n", checks=checks)), dq_engine)
    assert result.metrics["rows"] == []
    assert result.measures == {"rows": 0}
    assert {c.name: c.passed for c in result.checks} == {"has rows": False, "clean": True}
    assert result.malformed_values == {}
    assert not result.passed


def _as_date(value: object) -> object:
    return value.isoformat() if isinstance(value, dt.date) else value


def test_rows_are_numbered_in_their_own_files(dq_engine, tmp_path):
    # by hand: a.csv's row 1 'x'; b.csv's rows 1 'bad', 2 'y', 3 'z'; rows of one number by value
    (tmp_path / "a.csv").write_text("id,price\n1,x\n2,3\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("id,price\n1,bad\n2,y\n3,z\n", encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source d = csv("a.csv", "b.csv", schema = "id bigint, price double")\nprofiling rows: select price from d\n',
        encoding="utf-8",
    )
    result = run(load_suite(str(suite)), dq_engine)
    assert result.malformed_values == {
        "d": {
            "price": {
                "type": "double",
                "malformed": 4,
                "examples": [
                    {"row": 1, "value": "bad"},
                    {"row": 1, "value": "x"},
                    {"row": 2, "value": "y"},
                    {"row": 3, "value": "z"},
                ],
            }
        }
    }
