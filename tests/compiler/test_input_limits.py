"""Bounded input and what validation refuses before any data is read: every case a located error
(code, line, column) where it once was a Python exception or an engine failure mid-run."""

from __future__ import annotations

import polars as pl
import pytest

from gryph.client import validate
from gryph.client.run.runner import compile_source
from gryph.compiler.errors import InvalidInput

FRAMES = {"t": pl.DataFrame({"a": [1, 2], "s": ['{"k": 1}', "x"], "ts": [1, 2]})}


def refused(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        validate(text, frames=FRAMES)
    return caught.value


def test_brackets_nest_64_deep_and_no_deeper():
    validate("completeness c on t: " + "(" * 64 + "a" + ")" * 64, frames=FRAMES)
    error = refused("completeness c on t: " + "(" * 65 + "a" + ")" * 65)
    # the 65th bracket: 21 characters of prefix, then 64 brackets before it
    assert (error.code, error.line, error.column) == ("NESTED_TOO_DEEP", 1, 22 + 64)


def test_checks_nest_64_deep_too():
    measure = "measure m on t: select count(*) from t\n"
    validate(measure + "check c: " + "(" * 63 + "measures['m']" + ")" * 63 + " > 0", frames=FRAMES)
    assert refused(measure + "check c: " + "(" * 65 + "1" + ")" * 65).code == "NESTED_TOO_DEEP"


def test_expression_trees_are_at_most_128_levels():
    validate("completeness c on t: a" + " + a" * 128, frames=FRAMES)
    error = refused("completeness c on t: a" + " + a" * 129)
    assert (error.code, error.line, error.column) == ("EXPRESSION_TOO_DEEP", 1, 22)


def test_five_hundred_conjuncts_are_nine_levels():
    conjuncts = " and ".join(f"t.a = u.a + {i}" for i in range(500))
    frames = dict(FRAMES, u=pl.DataFrame({"a": [1]}))
    compiled = compile_source(f"accuracy x on t, u: {conjuncts}", frames=frames)
    assert compiled.plan.queries


@pytest.mark.parametrize(
    "expression, code",
    [
        ("a + " + "9" * 5000, "NUMBER_TOO_LARGE"),
        ("cast(a as decimal(100, 2))", "UNKNOWN_TYPE"),
        ("cast(a as decimal(38, 40))", "UNKNOWN_TYPE"),
        ("cast(ts as date)", "CAST_NOT_ALLOWED"),
        ("cast(to_date(s) as bigint)", "CAST_NOT_ALLOWED"),
        ("substring(s, 1, 99999999999)", "ARGUMENT_OUT_OF_RANGE"),
        ("s.json()['']", "UNSUPPORTED_NAME"),
        ("a.max().max()", "NESTED_AGGREGATE"),
    ],
)
def test_validation_refuses_what_an_engine_would(expression, code):
    error = refused(f"profiling p on t: select {expression} as v from t")
    assert (error.code, error.line) == (code, 1) and error.column >= 26


def test_limit_beyond_64_bits():
    assert refused("profiling p on t: select a from t limit 9223372036854775808").code == "LIMIT_TOO_LARGE"


@pytest.mark.parametrize("threshold", ["1e999", "9" * 5000 + "m", "99999999999999999999d"])
def test_durations_beyond_reason(threshold):
    error = refused(f"timeliness l on t: ts with threshold = {threshold}")
    assert error.code == "BAD_DETAIL" and error.line == 1


def test_a_suite_that_is_not_utf8(tmp_path):
    path = tmp_path / "s.dq"
    path.write_bytes(b"completeness c on t: a\n# caf\xe9\n")
    with pytest.raises(InvalidInput) as caught:
        validate(str(path), frames=FRAMES)
    assert (caught.value.code, caught.value.line, caught.value.column) == ("BAD_ENCODING", 2, 6)


def test_hints_take_names_of_any_json_type():
    from gryph.compiler.errors import did_you_mean

    # a config may name a column 5 or null: the hint compares their text
    assert did_you_mean(5, ["a", "b5"]) == "did you mean 'b5'?"
    assert did_you_mean(None, [1, "x"]) == "known names: 1, x"
