"""A drift check's counts of a text or boolean column are the same on both engines: rows, NULLs,
the 50 most frequent categories (ties: the first in code-point order) and the rest as "other".
Expected counts worked out by hand from each table."""

from __future__ import annotations

from gryph.client import load_suite, run
from tests.conformance.conformance_support import arrow_table

SUITE = 'check "steady": drift(t.x)\n'
NAME = "sketch(t.x)"


def _counts(engine, column_type: str, values: list[object]) -> object:
    table = {"columns": [["x", column_type]], "rows": [[v] for v in values]}
    result = run(load_suite(SUITE, {"t": arrow_table(table)}), engine)
    [check] = result.checks
    assert check.status == "SKIP" and check.skipped == "no earlier run to compare with"
    return result.measures[NAME]


def test_null_empty_text_and_unicode_are_categories_of_their_own(dq_engine):
    values = ["b", "a", None, "", "é", "a", "b", "c", None, "日本"]
    # a and b twice (a first: code point 97 < 98), then the ones counted once in code-point order:
    # '' (empty) < 'c' (99) < 'é' (233) < '日' (26085); NULL is counted apart
    assert _counts(dq_engine, "string", values) == {
        "rows": 10,
        "null": 2,
        "other": 0,
        "categories": [["a", 2], ["b", 2], ["", 1], ["c", 1], ["é", 1], ["日本", 1]],
    }


def test_more_than_fifty_categories_keep_the_most_frequent_and_count_the_rest_as_other(dq_engine):
    # c00..c59 once each, then z three times and c59 once more: z (3), c59 (2), then c00..c47 (the
    # 48 first of the 58 tied at 1, in code-point order) make 50; c48..c58 (11 rows) are "other"
    values = [f"c{i:02d}" for i in range(60)] + ["z"] * 3 + ["c59"]
    counts = _counts(dq_engine, "string", values)
    assert counts["rows"] == 64 and counts["null"] == 0 and counts["other"] == 11
    assert counts["categories"] == [["z", 3], ["c59", 2], *([f"c{i:02d}", 1] for i in range(48))]


def test_an_empty_table_and_a_column_of_nulls(dq_engine):
    assert _counts(dq_engine, "string", []) == {"rows": 0, "null": 0, "other": 0, "categories": []}
    assert _counts(dq_engine, "string", [None, None]) == {"rows": 2, "null": 2, "other": 0, "categories": []}


def test_a_boolean_column_has_the_categories_true_and_false(dq_engine):
    counts = _counts(dq_engine, "bool", [True, False, None, True])
    assert counts == {"rows": 4, "null": 1, "other": 0, "categories": [["true", 2], ["false", 1]]}


def test_more_distinct_values_than_counted_is_the_checks_error_never_a_cut(dq_engine, monkeypatch):
    monkeypatch.setattr("gryph.compiler.lowering.measure.MAX_DISTINCT", 3)  # 100,000 in earnest
    table = {"columns": [["x", "string"]], "rows": [["a"], ["b"], ["c"], ["d"]]}
    result = run(load_suite(SUITE, {"t": arrow_table(table)}), dq_engine)
    [check] = result.checks
    assert result.measures[NAME]["error"]["code"] == "MEASURE_NOT_ONE_ROW"
    # a check reading a failed measure fails with its error, as any other check does
    assert check.status == "FAIL" and "counts more than 3 distinct values" in check.error
