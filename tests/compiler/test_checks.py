"""The check language: grammar, precedence, null semantics, functions, validation errors with
line and column, bounded evaluation, pass policies, and measures fused into the rules' scans."""

from __future__ import annotations

import datetime as dt

import pytest

from gryph.compiler.checks.check_functions import Clock, NoHistory
from gryph.compiler.checks.check_tree import MAX_DEPTH, compile_checks
from gryph.compiler.checks.interpreter import Env, evaluate
from gryph.compiler.checks.verdict import CheckOutcome, holds, judge
from gryph.compiler.errors import InvalidInput
from gryph.compiler.plan import Aggregate, walk_relations
from gryph.compiler.results import Row
from gryph.compiler.suites.native_suites import parse_suite
from gryph.compiler.suites.suite import PassSpec
from tests.compiler.compiler_support import compile_text

STARTED = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)
MEASURES = {"n": 10, "row": Row(("c", "cd"), (100, 10)), "none": None, "s": "abc", "f": 2.5}
METRICS = {"acc": {"total": 8, "matchedFraction": 0.75}, "prof": [{"n": 3}]}


def suite_text(checks: str) -> str:
    measures = "".join(f'measure "{name}": count(*)\n' for name in MEASURES)
    return (
        measures
        + "accuracy acc on users, orders: users.user_id = orders.user_id\n"
        + "profiling prof on users: count(*) as n\n"
        + checks
    )


def compiled(checks: str):
    return compile_checks(parse_suite(suite_text(checks), known_sources=("users", "orders")))


def value(expr: str, history=None):
    [check] = compiled(f'check "c": {expr}\n')
    return evaluate(check.expr, Env(MEASURES, METRICS, Clock("s", STARTED, history or NoHistory())))


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),  # left-associative
        ("7 / 2", 3.5),  # division is exact
        ("-7 % 3", -1),  # the remainder takes the dividend's sign, as in SQL and Java
        ("7.5 % 2", 1.5),
        ("1 / 0", None),  # division by zero is null
        ("-(2 + 3)", -5),
        ("'a' + \"b\"", "ab"),
        ("1 < 2 && 2 < 3 || false", True),
        ("false && true || true", True),  # && binds tighter than ||
        ("true or false and false", True),
        ("!1 == 2", True),  # `!` binds looser than `==`: !(1 == 2)
        ("not 1 == 2", True),
        ("NOT TRUE", False),  # keywords are case-insensitive
        ("[1, 2, 3][-1]", 3),
        ("[1, [2, 3]][1][0]", 2),
        ("1 == 1.0", True),
        ("'1' == 1", False),  # different types are never equal
        ("[1, 2] == [1, 2]", True),
        ("1e3", 1000.0),
    ],
)
def test_operators_and_precedence(expr, expected):
    assert value(expr) == expected and type(value(expr)) is type(expected)


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("null == null", True),  # equality treats null as a value
        ('measures["none"] == null', True),
        ('measures["n"] != null', True),
        ("null < 1", None),  # ordering with null is unknown...
        ("!(null < 1)", None),  # ...and stays unknown under not
        ("null + 1", None),
        ("null && false", False),  # three-valued logic, as in SQL
        ("null || true", True),
        ("null && true", None),
        ("[1, null][1]", None),
        ('measures["none"][0]', None),  # a subscript of null is null
    ],
)
def test_null_semantics(expr, expected):
    assert value(expr) is expected


def test_a_check_passes_only_when_true():
    checks = compiled('check "unknown": null < 1\ncheck "yes": 1 < 2\ncheck "number": 1 + 1\n')
    verdict = judge(checks, PassSpec("all"), MEASURES, METRICS, Clock("s", STARTED, NoHistory()))
    assert [c.passed for c in verdict.checks] == [False, True, False]
    assert verdict.checks[2].error == "the check gives 2, not true or false"
    assert verdict.passed is False


def test_measures_rows_and_metrics():
    assert value('measures["row"][0]') == 100
    assert value('measures["row"]["cd"]') == 10
    assert value('measures["row"] == [100, 10]') is True
    assert value('metrics["acc"]["matchedFraction"] >= 0.75') is True
    assert value('metrics["prof"][0]["n"]') == 3
    assert value('len(measures["row"]) + len(measures["s"]) + len([])') == 5


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("avg([1, 2, null, 6])", 3.0),  # nulls are skipped
        ("avg([])", None),
        ("sum([1, 2, 3])", 6),
        ("sum([0.5, 0.25])", 0.75),
        ("min(3, 1, 2)", 1),
        ("max([1, 7, null])", 7),
        ("max('a', 'b')", "b"),
        ("min([])", None),
        ("abs(-2.5)", 2.5),
        ('abs(measures["n"] - 12)', 2),
    ],
)
def test_functions(expr, expected):
    assert value(expr) == expected


@pytest.mark.parametrize(
    "expr,message",
    [
        ("1 < 'a'", "cannot compare number < string"),
        ("'a' * 2", "'*' needs numbers"),
        ('measures["row"]["x"]', "the row has no column 'x'"),
        ("[1][5]", "position 5 is out of range"),
        ("1 && true", "'and' needs true, false or null"),
        ("avg(['a'])", "avg() needs numbers"),
        ('metrics["acc"]["nope"]', "no key 'nope'"),
        ("get_previous_measure_values('n', -1)", "needs a count of runs >= 0"),
    ],
)
def test_evaluation_errors_fail_the_check_with_a_message(expr, message):
    [check] = compiled(f'check "c": {expr}\n')
    [outcome] = judge([check], PassSpec(), MEASURES, METRICS, Clock("s", STARTED, NoHistory())).checks
    assert outcome.passed is False and message in outcome.error


def test_failed_checks_keep_the_values_they_read():
    [check] = compiled('check "c": measures["n"] >= metrics["acc"]["total"] + max(1, 2)\n')
    [outcome] = judge([check], PassSpec(), MEASURES, METRICS, Clock("s", STARTED, NoHistory())).checks
    assert outcome.passed is True
    assert outcome.values == {'measures["n"]': 10, 'metrics["acc"]["total"]': 8, "max(1, 2)": 2}


@pytest.mark.parametrize(
    "checks,code,line,column",
    [
        ('check "c": measures["nn"] == 1\n', "UNKNOWN_MEASURE", 1, 20),
        ('check "c": 1 == 1\ncheck "d": metrics["ac"]["total"] > 0\n', "UNKNOWN_RULE", 2, 19),
        ('check "c":\n    lenn([1])\n', "UNKNOWN_FUNCTION", 2, 5),
        ('check "c": 1 == 1 and rowz(users where age > 0) == 0\n', "UNKNOWN_FUNCTION", 1, 23),
        ('check "c": len(1, 2) == 1\n', "WRONG_ARITY", 1, 12),
        ('check "c": get_previous_measure_values("nn", 3)\n', "UNKNOWN_MEASURE", 1, 40),
        ('check "c": foo == 1\n', "UNKNOWN_NAME", 1, 12),
        ('check "c": measures == 1\n', "BAD_SUBSCRIPT", 1, 12),
        ('check "c": measures[0] == 1\n', "BAD_SUBSCRIPT", 1, 20),
        ('check "c": 1 == 1\npass when checks("c", "d")\n', "UNKNOWN_CHECK", 2, 1),
        ('warn check "w": 1 == 1\npass when checks("w")\n', "WARNING_IN_POLICY", 2, 1),
    ],
)
def test_validation_errors_have_code_line_and_column(checks, code, line, column):
    offset = suite_text("").count("\n")
    with pytest.raises(InvalidInput) as caught:
        compiled(checks)
    assert (caught.value.code, caught.value.line, caught.value.column) == (code, line + offset, column)


@pytest.mark.parametrize(
    "call,near",
    [
        ("rowz(users) > 0", "rows"),  # rows(...) is read by the parser, anomaly and drift as whole checks
        ("Rows(users) > 0", "rows"),
        ("rowz(users where age > 0) == 0", "rows"),  # a filtered source: no call, but the same error
        ("Rows(users where age > 0) == 0", "rows"),
        ('anomally(measures["n"], normal(k = 3))', "anomaly"),
        ("drfit(users.age)", "drift"),
        ("maxx(1, 2) > 0", "max"),
    ],
)
def test_a_misspelt_check_function_names_the_near_one(call, near):
    with pytest.raises(InvalidInput) as caught:
        compiled(f'check "c": {call}\n')
    assert (caught.value.code, caught.value.hint) == ("UNKNOWN_FUNCTION", f"did you mean {near!r}?")


def test_a_check_function_given_a_filtered_source_says_rows_counts_it():
    with pytest.raises(InvalidInput) as caught:
        compiled('check "c": max(users where age > 0) == 0\n')
    error = caught.value
    assert (error.code, error.message) == ("SYNTAX_ERROR", "max(...) takes values, not a source and a condition")
    assert (error.text, error.hint) == (
        "max(users where age > 0)",
        "rows(users where ...) counts the rows that hold the condition",
    )


@pytest.mark.parametrize(
    "expr",
    [
        "__import__('os')",  # no such function
        "measures.keys()",  # no attribute access: a syntax error
        "(lambda: 1)()",
        "open('/etc/passwd')",
    ],
)
def test_nothing_outside_the_language(expr):
    with pytest.raises(InvalidInput) as caught:
        compiled(f'check "c": {expr}\n')
    assert caught.value.code in ("UNKNOWN_FUNCTION", "SYNTAX_ERROR", "UNKNOWN_NAME")


def test_nesting_is_bounded():
    deep = "[" * (MAX_DEPTH + 1) + "1" + "]" * (MAX_DEPTH + 1)
    with pytest.raises(InvalidInput) as caught:
        compiled(f'check "c": {deep} == 1\n')
    assert caught.value.code in ("CHECK_TOO_DEEP", "NESTED_TOO_DEEP")
    chain = " + ".join(["1"] * 5000)  # flat in the text, deep once folded
    with pytest.raises(InvalidInput) as caught:
        compiled(f'check "c": {chain} > 0\n')
    assert caught.value.code == "CHECK_TOO_DEEP"
    assert value("((((((((((1))))))))))") == 1


def _outcomes(*passed: bool, warn: tuple[bool, ...] = ()) -> list[CheckOutcome]:
    warn = warn or (False,) * len(passed)
    return [CheckOutcome(f"c{i}", "", p, w) for i, (p, w) in enumerate(zip(passed, warn, strict=True))]


@pytest.mark.parametrize(
    "policy,outcomes,expected",
    [
        (PassSpec("always"), _outcomes(False, False), True),
        (PassSpec("all"), _outcomes(True, True), True),
        (PassSpec("all"), _outcomes(True, False), False),
        (PassSpec("all"), _outcomes(True, False, warn=(False, True)), True),  # a warning never fails the run
        (PassSpec("any"), _outcomes(False, True), True),
        (PassSpec("any"), _outcomes(False, False), False),
        (PassSpec("checks", ("c0", "c2")), _outcomes(True, False, True), True),
        (PassSpec("checks", ("c1",)), _outcomes(True, False, True), False),
        (PassSpec("passed", op=">", count=1), _outcomes(True, False, True), True),
        (PassSpec("passed", op=">", count=2), _outcomes(True, False, True), False),
        (PassSpec("passed", op=">=", count=2), _outcomes(True, True, warn=(False, True)), False),
    ],
)
def test_pass_policies(policy, outcomes, expected):
    assert holds(policy, outcomes) is expected


def _with_skipped(outcomes: list[CheckOutcome], skipped: int) -> list[CheckOutcome]:
    """``outcomes`` and ``skipped`` more checks that could not judge yet."""
    more = [CheckOutcome(f"s{i}", "", False, skipped="no earlier run yet") for i in range(skipped)]
    return outcomes + more


@pytest.mark.parametrize(
    "policy,outcomes,expected",
    [
        (PassSpec("all"), _with_skipped(_outcomes(True), 2), True),
        (PassSpec("all"), _with_skipped(_outcomes(True, False), 1), False),  # the failed one still fails it
        (PassSpec("any"), _with_skipped([], 1), True),  # no check judged, none failed
        (PassSpec("any"), _with_skipped(_outcomes(False), 1), True),
        (PassSpec("any"), _outcomes(False), False),
        (PassSpec("checks", ("s0",)), _with_skipped(_outcomes(True), 1), True),
        # 2 pass, 1 skipped: "passed >= 3" could hold once it judges, "passed < 3" holds now
        (PassSpec("passed", op=">=", count=3), _with_skipped(_outcomes(True, True), 1), True),
        (PassSpec("passed", op="<", count=3), _with_skipped(_outcomes(True, True), 1), True),
        (PassSpec("passed", op=">=", count=4), _with_skipped(_outcomes(True, True), 1), False),
        (PassSpec("passed", op="==", count=0), _with_skipped(_outcomes(True), 3), False),
    ],
)
def test_a_skipped_check_fails_no_policy(policy, outcomes, expected):
    assert holds(policy, outcomes) is expected


def test_pass_policy_syntax():
    suite = parse_suite('check "a": true\ncheck b: true\nPASS WHEN checks("a", b)\n')
    assert suite.policy.kind == "checks" and suite.policy.names == ("a", "b")
    assert parse_suite("check a: true\npass when passed > 3\n").policy == PassSpec(
        "passed", op=">", count=3, location=parse_suite("check a: true\npass when passed > 3\n").policy.location
    )
    assert parse_suite("check a: true\n").policy.kind == "all"  # a failing check fails the run unless written
    assert parse_suite("check a: true\npass when always\n").policy.kind == "always"
    with pytest.raises(InvalidInput) as caught:
        parse_suite("check a: true\npass when all\npass when any\n")
    assert (caught.value.code, caught.value.line) == ("DUPLICATE_PASS", 3)


def test_aggregate_measures_fuse_into_the_rules_scan():
    compiled_suite = compile_text(
        "completeness c on users: first_name\n"
        'measure "nulls": select count(*) from users where first_name is null\n'
        'measure "ages" as list on users: min(age), max(age)\n'
        'measure "other": select count(*) from orders\n'
    )
    aggregates = [
        r for q in compiled_suite.plan.queries for r in walk_relations(q.relation) if isinstance(r, Aggregate)
    ]
    assert len(aggregates) == 2  # one scan of users (rule and two measures), one of orders
    assert (
        len(compiled_suite.plan.queries) - sum(1 for q in compiled_suite.plan.queries if q.name.startswith("rows")) == 2
    )
