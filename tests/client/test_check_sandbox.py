"""Escape attempts in the check language: no attribute access, no import, no call outside the
check functions, no repetition of strings or lists; each a located error when validated or a
failed check with its error, in bounded time."""

from __future__ import annotations

import polars as pl
import pytest

from gryph.client import run
from gryph.compiler.errors import InvalidInput

FRAMES = {"t": pl.DataFrame({"a": [1, 2]})}
MEASURE = "measure m on t: select count(*) from t\n"


@pytest.mark.parametrize(
    "check, code",
    [
        ("measures.__class__", "BAD_DRIFT_CHECK"),  # read as a column, which only drift(...) takes
        ('measures["m"].__class__', "SYNTAX_ERROR"),
        ('__import__("os")', "UNKNOWN_FUNCTION"),
        ('open("/etc/passwd")', "UNKNOWN_FUNCTION"),
        ('exec("1")', "UNKNOWN_FUNCTION"),
        ("10 ** 10", "SYNTAX_ERROR"),
        ("pow(10, 100000)", "UNKNOWN_FUNCTION"),
        ("(" * 65 + "1" + ")" * 65 + " > 0", "NESTED_TOO_DEEP"),
    ],
)
def test_refused_when_validated(check, code):
    with pytest.raises(InvalidInput) as caught:
        run(MEASURE + "check c: " + check, frames=FRAMES)
    assert (caught.value.code, caught.value.line) == (code, 2) and caught.value.column >= 10


@pytest.mark.parametrize(
    "check, message",
    [
        ('"a" * 1000000000', "'*' needs numbers"),
        ("[1] * 1000000000", "'*' needs numbers"),
        ('measures["m"]["__class__"]', "cannot be subscripted"),
        ('avg_previous("m", -5) == null', "days > 0"),
        ('measures["m"] * 99999999999999', "not true or false"),
    ],
)
def test_a_failed_check_with_its_error(check, message):
    result = run(MEASURE + "check c: " + check, frames=FRAMES)
    (outcome,) = result.checks
    assert not outcome.passed and message in outcome.error


def test_a_huge_history_window_reads_what_there_is():
    # no earlier run: the average over any window, however long, is null
    result = run(MEASURE + 'check c: avg_previous("m", 1000000000000) == null', frames=FRAMES)
    assert result.checks[0].passed
