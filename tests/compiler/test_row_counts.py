"""``rows(SOURCE where CONDITION)`` in a check: one measure per distinct text, read by the check,
counting as the DSL's ``select count(*) from SOURCE where CONDITION`` would; located errors."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.language.ruletree import nodes as n
from gryph.compiler.suites.native_suites import parse_suite

SUITE = """source t = csv("t.csv")
check "a": rows(t where x > 1) == 0
warn check "b": rows(t where x > 1) <= 0.1 * rows(t)
check "c": max([rows(t)], 1) > 0
"""


def test_each_rows_text_is_one_measure_the_checks_read():
    suite = parse_suite(SUITE, "s.dq")
    # "rows(t where x > 1)" twice, "rows(t)" twice: two measures, in the order first written
    assert [m.name for m in suite.measures] == ["rows(t where x > 1)", "rows(t)"]
    first = suite.measures[0]
    assert isinstance(first.body, n.SelectQuery)
    assert first.body.source == "t" and first.body.where is not None and first.body.where.text == "x > 1"
    assert [item.expr.text for item in first.body.items] == ["count(*)"]
    assert suite.measures[1].body.where is None  # type: ignore[union-attr]
    assert (first.location.line, first.location.column) == (2, 12)
    # the checks read measures["..."] under the same text, so their values are shown as rows(...)
    assert suite.checks[1].expr.text == "rows(t where x > 1) <= 0.1 * rows(t)"


def test_a_measure_of_the_same_name_is_a_duplicate():
    text = 'source t = csv("t.csv")\nmeasure "rows(t)": count(*)\ncheck "a": rows(t) > 0\n'
    with pytest.raises(InvalidInput) as error:
        parse_suite(text, "s.dq")
    assert error.value.code == "DUPLICATE_MEASURE"
    assert error.value.location.line == 3


def test_a_condition_that_does_not_parse_is_located():
    with pytest.raises(InvalidInput) as error:
        parse_suite('source t = csv("t.csv")\ncheck "a": rows(t where) == 0\n', "s.dq")
    assert error.value.code == "SYNTAX_ERROR"
    assert (error.value.location.line, error.value.location.column) == (2, 24)


def test_an_unknown_source_is_located_at_its_rows():
    with pytest.raises(InvalidInput) as error:
        parse_suite('source orders = csv("t.csv")\ncheck "a": 1 < rows(ordres where x > 1)\n', "s.dq")
    assert error.value.code == "UNKNOWN_SOURCE"
    assert (error.value.location.line, error.value.location.column) == (2, 16)
    assert error.value.hint == "did you mean 'orders'?"
