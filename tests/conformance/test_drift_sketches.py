"""A drift check's sketch is the same on both engines: rows, values (NaN included), NaN values and
21 exact quantiles of the numbers, with NULL, NaN, an empty table and a column of NULLs only.
Quantiles worked out by hand: the quantile at f is the smallest value v with at least a fraction f
of the numbers <= v (percentile_disc)."""

from __future__ import annotations

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

SUITE = 'check "steady": drift(t.x)\n'
NAME = "sketch(t.x)"


def _table(column_type: str, values: list[object]) -> dict:
    return {"columns": [["x", column_type]], "rows": [[v] for v in values]}


def _sketch(engine, table: dict) -> tuple[object, str]:
    result = run(load_suite(SUITE, {"t": arrow_table(table)}), engine)
    [check] = result.checks
    assert check.status == "SKIP"  # no history: nothing to compare with
    return result.measures[NAME], check.skipped


def test_numbers_with_null_and_nan(dq_engine):
    sketch, skipped = _sketch(dq_engine, _table("float64", [*[float(v) for v in range(10, 0, -1)], None, "NaN"]))
    assert skipped == "no earlier run to compare with"
    # ten numbers 1..10: the quantile at f is ceil(10 f) (1 at f = 0)
    quantiles = [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10]
    assert sketch == {
        "rows": 12,
        "values": 11,  # NULL is no value; NaN is one
        "nan": 1,
        **{f"p{5 * i:03d}": float(q) for i, q in enumerate(quantiles)},
    }


def test_whole_numbers_with_duplicates(dq_engine):
    sketch, _ = _sketch(dq_engine, _table("int64", [3, 1, 3, 3]))
    # 1, 3, 3, 3: a quarter of the values are <= 1, so the quantiles up to 25% are 1, the rest 3
    assert sketch == {"rows": 4, "values": 4, "nan": 0, **{f"p{5 * i:03d}": 1.0 if i <= 5 else 3.0 for i in range(21)}}


def test_empty_and_null_only_columns_have_no_quantiles(dq_engine):
    none = {f"p{5 * i:03d}": None for i in range(21)}
    assert _sketch(dq_engine, _table("float64", []))[0] == {"rows": 0, "values": 0, "nan": 0, **none}
    assert _sketch(dq_engine, _table("float64", [None, None]))[0] == {"rows": 2, "values": 0, "nan": 0, **none}
    assert _sketch(dq_engine, _table("float64", ["NaN"]))[0] == {"rows": 1, "values": 1, "nan": 1, **none}
