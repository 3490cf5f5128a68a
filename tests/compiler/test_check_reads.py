"""What a check reads, held to what the suite writes before any data is read: the metric keys of
each rule kind (renames and options included) and a measure compared with a literal of another
type. Warning checks are held to the same: their mistakes are errors (exit 2), not warnings."""

from __future__ import annotations

import pytest

from gryph.compiler.analysis.check_pass import check_suite
from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan.data_types import INTEGER, STRING, TIMESTAMP, schema
from gryph.compiler.suites.native_suites import parse_suite

SCHEMAS = {
    "users": schema(("user_id", INTEGER), ("name", STRING), ("created_ts", TIMESTAMP), ("shipped_ts", TIMESTAMP)),
    "copy": schema(("user_id", INTEGER), ("name", STRING)),
}
RULES = """accuracy acc on users, copy: users.user_id = copy.user_id
accuracy renamed on users, copy: users.user_id = copy.user_id with miss = "miss_count"
uniqueness ids on users: user_id with duplication.array = "dups"
completeness full on users: name
timeliness late on users: created_ts, shipped_ts with percentile.values = (0.5, 0.95)
profiling prof on users: count(*) as n
measure "rows": select count(*) from users
measure "names" as map: select min(name) as first, count(name) as n from users
measure "flag": select max(user_id) > 3 from users
"""


def checked(checks: str):
    return check_suite(parse_suite(RULES + checks, known_sources=tuple(SCHEMAS)), SCHEMAS)


def error_of(checks: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as raised:
        checked(checks)
    return raised.value


@pytest.mark.parametrize(
    "check",
    [
        'metrics["acc"]["matchedFraction"] >= 0.99',
        'metrics["acc"]["total"] == metrics["acc"]["matched"] + metrics["acc"]["miss"]',
        'metrics["renamed"]["miss_count"] == 0',
        'len(metrics["ids"]["dups"]) == 0 && metrics["ids"]["unique"] > 0',
        'metrics["full"]["incomplete"] == 0',
        'metrics["late"]["percentile_95"] < 1000 && metrics["late"]["avg"] < 500',
        'metrics["prof"][0]["n"] > 0',  # profiling: its query's columns, any key
        'measures["rows"] > 9000',
        'measures["rows"] == null',
        'measures["names"]["first"] != "a" && measures["names"][1] >= 2',
        'measures["names"]["n"] > measures["rows"]',  # two measures: not a literal
        'measures["flag"] == true',
    ],
)
def test_checks_that_read_what_is_written_validate(check):
    assert len(checked(f'check "c": {check}\n').checks) == 1


@pytest.mark.parametrize(
    "check,bad,hint",
    [
        ('metrics["acc"]["matched_fraction"] >= 0.99', '["matched_fraction"]', "did you mean 'matchedFraction'?"),
        ('metrics["renamed"]["miss"] == 0', '["miss"]', "the rule's details rename it: 'miss_count'"),
        ('metrics["ids"]["dup"] == 0', '["dup"]', "did you mean 'dups'?"),
        ('metrics["full"]["missing"] == 0', '["missing"]', None),
    ],
)
def test_an_unknown_metric_key_is_located_with_the_closest_key(check, bad, hint):
    error = error_of(f'\n\ncheck "c": {check}\n')
    assert error.code == "UNKNOWN_METRIC" and error.text == bad
    # the check's line, and the column of the key's subscript (1-based, after 'check "c": ')
    assert (error.location.line, error.location.column) == (len(RULES.splitlines()) + 3, 12 + check.index(bad))
    assert error.hint == hint if hint else "known names" in error.hint


def test_an_error_in_a_warning_check_is_an_error_of_that_check():
    error = error_of('warn check "match rate": metrics["acc"]["matched_fraction"] >= 0.99\n')
    assert error.code == "UNKNOWN_METRIC"
    assert "warn check 'match rate'" in str(error) and "rule 'acc' writes no metric 'matched_fraction'" in str(error)


@pytest.mark.parametrize(
    "check,hint",
    [
        ('measures["rows"] > "9000"', "write the number without quotes: 9000"),
        ('"9000" <= measures["rows"]', "write the number without quotes: 9000"),
        ('measures["rows"] == "many"', "compare with a number"),
        ('measures["names"]["first"] == 3', "compare with a string"),
        ('measures["names"][1] < "2"', "write the number without quotes: 2"),
        ('measures["flag"] == 1', "compare with a boolean"),
        ('(measures["rows"]) != -"1"', None),  # a sign on a string is no number: left to the interpreter
    ],
)
def test_a_measure_compared_with_a_literal_of_another_type_is_located(check, hint):
    if hint is None:
        assert len(checked(f'check "c": {check}\n').checks) == 1
        return
    error = error_of(f'check "c": {check}\n')
    assert error.code == "TYPE_MISMATCH" and error.hint == hint
    assert error.location.line == len(RULES.splitlines()) + 1 and error.location.column == 12
    assert error.text == check
