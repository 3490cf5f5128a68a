"""Checks over numbers at the edge of the float range: each gives a defined value or fails that one
check with its error, and the run goes on (report, verdict, history) instead of aborting."""

from __future__ import annotations

import polars as pl
import pytest

from gryph.client import run

HUGE = "1" + "0" * 400  # 10**400: an exact integer, beyond any float
INF = "1e308 * 10"  # float overflow: inf, as float arithmetic gives
NAN = f"({INF} - {INF})"


def outcome(check: str, history=None):
    """The one check's (passed, error) in a run that also holds a check that passes."""
    text = (
        f'suite edges\nmeasure "m" on t: select count(*) from t\n'
        f'check "edge": {check}\ncheck "fine": measures["m"] == 2\npass when all\n'
    )
    result = run(text, frames={"t": pl.DataFrame({"x": [1, None]})}, history=history)
    edge, fine = result.checks
    assert fine.passed and result.measures == {"m": 2}
    return edge.passed, edge.error


@pytest.mark.parametrize(
    "check",
    [
        f"{INF} > 1e308",  # 1e308 * 10 is inf
        f"-{INF} < -1e308",  # and -inf on the other side
        f"{INF} % 2 != {INF} % 2",  # inf % 2 is NaN (as in Java and Spark), and NaN is not NaN
        f"{HUGE} % 3 == 1",  # exact integers stay exact: 10**400 = 1 (mod 3)
        f"{HUGE} - {HUGE} == 0",
        f"-{HUGE} % 7 == -4",  # 10**400 = 10**(6*66+4) = 10**4 = 4 (mod 7); the dividend's sign
        "sum([1e308, 1e308]) > 1e308",  # the sum leaves the float range: inf
        "sum([1e308, -1e308, null, 1]) == 1",
        "sum([1e308 * 10, -1e308 * 10]) != sum([1e308 * 10, -1e308 * 10])",  # inf - inf: NaN
        f"sum([{HUGE}, 1]) - {HUGE} == 1",  # integers are summed exactly
        "avg([1e308, 1e308]) == 1e308",  # the sum overflows, the mean does not
        "abs(avg([1.5e308, -1e308, 1.5e308]) - 6.666666666666667e307) < 1e293",  # 2e308 / 3
        f"avg([{INF}, 1]) > 1e308",
    ],
)
def test_defined_results(check):
    assert outcome(check) == (True, None)


@pytest.mark.parametrize(
    "check, message",
    [
        (f"{HUGE} / 3 > 0", "an integer of about 401 digits / 3 is beyond the range of a floating-point number"),
        (f"{HUGE} * 1.5 > 0", "an integer of about 401 digits * 1.5 is beyond the range"),
        (f"1.0 + {HUGE} > 0", "1.0 + an integer of about 401 digits is beyond the range"),
        (f"{HUGE} % 2.5 > 0", "an integer of about 401 digits % 2.5 is beyond the range"),
        (f"sum([{HUGE}, 0.5]) > 0", "sum() got an integer of about 401 digits, beyond the range"),
        (f"avg([{HUGE}, 1]) > 0", "avg() got an integer of about 401 digits, beyond the range"),
        (f'avg_previous("m", {NAN}) == null', "avg_previous() needs a number of days > 0, got nan"),
        (f'avg_previous("m", -{INF}) == null', "avg_previous() needs a number of days > 0, got -inf"),
        (
            f'get_previous_measure_values("m", -{HUGE}) == []',
            "needs a count of runs >= 0, got an integer of about 401 digits",
        ),
    ],
)
def test_out_of_range_fails_that_check_with_its_error(check, message):
    passed, error = outcome(check)
    assert not passed and message in error


@pytest.mark.parametrize("days", ["1e300", INF, HUGE, "999999999"])
def test_a_window_beyond_the_calendar_holds_every_earlier_run(tmp_path, days):
    history = tmp_path / "h.duckdb"
    assert outcome(f'avg_previous("m", {days}) == null', history) == (True, None)  # no earlier run
    assert outcome(f'avg_previous("m", {days}) == 2', history) == (True, None)  # the first run's m


def test_a_measure_row_read_whole_is_shown_as_a_map_and_kept_in_the_history(tmp_path):
    # a check on a measure of several columns read whole: the values it shows are the row by
    # column name (min(x) = 1, max(x) = 1 of [1, NULL]), JSON-able for the document and history
    text = 'suite rows\nmeasure "m" on t: select min(x) as lo, max(x) as hi from t\ncheck "c": measures["m"] != null\n'
    result = run(text, frames={"t": pl.DataFrame({"x": [1, None]})}, history=str(tmp_path / "h.duckdb"))
    (check,) = result.checks
    assert check.passed and check.values == {'measures["m"]': {"lo": 1, "hi": 1}}
