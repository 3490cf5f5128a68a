"""The validity rule kind in the compiler: how conditions are named, what a failing row is (a
NULL fails), located errors, and the checks that read its per-condition counts. Its metrics on
both engines: tests/conformance/cases/validity.json."""

from __future__ import annotations

import pytest

from gryph.compiler.analysis.check_pass import check_suite
from gryph.compiler.analysis.checked_rules import CheckedValidity
from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import format_scalar
from gryph.compiler.suites.native_suites import parse_suite
from tests.compiler.compiler_support import SCHEMAS, compile_text

RULE = "validity users_valid on users: age >= 0, first_name rlike '^[A-Z]' as capitalised, score is null or score < 1"


def checked_rule(text: str) -> CheckedValidity:
    checked = check_suite(parse_suite(text, known_sources=tuple(SCHEMAS)), SCHEMAS)
    (rule,) = [r for r in checked.rules if isinstance(r, CheckedValidity)]
    return rule


def error_of(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as raised:
        compile_text(text)
    return raised.value


def test_conditions_are_named_by_alias_or_text_and_a_null_fails_them():
    failures = checked_rule(RULE).failures()
    assert list(failures) == ["age >= 0", "capitalised", "score is null or score < 1"]
    # a row fails unless the condition is true: a NULL condition counts as false
    assert format_scalar(failures["age >= 0"]) == "(NOT coalesce((age >= 0), FALSE))"


@pytest.mark.parametrize(
    "text, code, near, hint",
    [
        ("validity v on users: agee >= 0", "UNKNOWN_COLUMN", "agee", "did you mean 'age'?"),
        ("validity v on users: age + 1", "TYPE_MISMATCH", "age + 1", "compare it with something"),
        ("validity v on users: age > 0, age > 0", "DUPLICATE_NAME", "age > 0", "give one an alias"),
        ("validity v on users: age > 0 as invalid", "DUPLICATE_NAME", "age > 0 as invalid", "another alias"),
        ("validity v on users: age > 0 as bad with total = 'bad'", "DUPLICATE_NAME", "age > 0 as bad", "alias"),
        ("validity v on nowhere: age > 0", "UNKNOWN_SOURCE", None, None),
    ],
)
def test_bad_conditions_are_located_errors(text, code, near, hint):
    error = error_of(text)
    assert error.code == code
    assert error.line == 1 and error.column is not None
    if near is not None:
        assert error.text == near and error.column == text.rindex(near) + 1  # a duplicate: at the second
    if hint is not None:
        assert hint in error.hint


def test_checks_read_each_condition_by_name_and_misspelt_ones_are_errors():
    compile_text(
        RULE
        + '\ncheck a: metrics["users_valid"]["invalid"] == 0'
        + '\nwarn check b: metrics["users_valid"]["capitalised"] <= 2 and metrics["users_valid"]["age >= 0"] == 0'
    )
    error = error_of(RULE + '\ncheck a: metrics["users_valid"]["capitalized"] == 0')
    assert error.code == "UNKNOWN_METRIC" and error.text == '["capitalized"]'
    assert "did you mean 'capitalised'?" in error.hint
