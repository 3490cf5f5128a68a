"""Parser behaviour promised by design.md section 3, read back from the compiled plan."""

from __future__ import annotations

import pytest

from gryph.compiler.plan import format_plan
from gryph.compiler.plan.scalars import Literal
from tests.compiler.compiler_support import compile_text, where_of


@pytest.mark.parametrize(
    "literal,millis",
    [
        ("4ms", 4),
        ("4s", 4000),
        ("2m", 120_000),
        ("5h", 18_000_000),
        ("3d", 259_200_000),
        ("0ms", 0),
    ],
)
def test_time_literals_are_milliseconds(literal, millis):
    assert where_of(f"age > {literal}") == f"(age > {millis})"


def test_time_literal_is_not_a_number_followed_by_a_name():
    assert where_of("age > 4ms and age < 10") == "((age > 4) AND (age < 10))"


@pytest.mark.parametrize(
    "text,value",
    [
        ("'a\"b'", 'a"b'),
        ('"it\'s"', "it's"),
        ("'x\\'y'", "x'y"),
        ('"hello \\" world \\" "', 'hello " world " '),
        ("''", ""),
        ("'Zoë 李'", "Zoë 李"),
    ],
)
def test_string_literals_end_at_their_own_closing_quote(text, value):
    compiled = compile_text(f"profiling p on users: count(*) as n where first_name = {text} or age = 1")
    literals = [node.value for node in _scalars(compiled.plan) if isinstance(node, Literal)]
    assert value in literals


def test_two_strings_on_one_line_stay_two_strings():
    assert where_of("first_name = 'a' or first_name = \"b\"") == "((first_name = 'a') OR (first_name = 'b'))"


@pytest.mark.parametrize("name", ["null_count", "source_id"])
def test_keyword_like_column_names_are_identifiers(name):
    assert where_of(f"{name} > 1") == f"({name} > 1)"


def test_columns_starting_with_keywords():
    plan = format_plan(
        compile_text("profiling p on orders: order_id, country where order_id > 1 order by order_id").plan
    )
    assert "Filter (order_id > 1)" in plan


def test_parentheses_are_kept():
    assert where_of("(age + user_id) * source_id > 1") == "(((age + user_id) * source_id) > 1)"
    assert where_of("age + user_id * source_id > 1") == "((age + (user_id * source_id)) > 1)"


def test_not_binds_looser_than_comparison():
    assert where_of("not age = user_id") == "(NOT (age = user_id))"
    assert where_of("! age = user_id") == "(NOT (age = user_id))"
    assert where_of("not age = 1 and age = 2") == "((NOT (age = 1)) AND (age = 2))"


def test_and_binds_tighter_than_or():
    assert where_of("age = 1 or age = 2 and age = 3") == "((age = 1) OR ((age = 2) AND (age = 3)))"
    assert where_of("age = 1 || age = 2 && age = 3") == "((age = 1) OR ((age = 2) AND (age = 3)))"


def test_not_equal_spellings():
    assert where_of("age != 1 and age <> 2") == "((age != 1) AND (age != 2))"


def test_keywords_are_case_insensitive():
    upper = compile_text(
        "PROFILING p ON users: SELECT age, COUNT(*) AS n Where age > 1 "
        "GROUP BY age Having Count(*) > 1 ORDER BY age DESC LIMIT 3"
    ).plan
    lower = compile_text(
        "profiling p on users: select age, count(*) as n where age > 1 "
        "group by age having count(*) > 1 order by age desc limit 3"
    ).plan
    assert format_plan(upper) == format_plan(lower)


def test_case_insensitive_predicates():
    assert where_of("first_name IS NOT NULL And age NOT IN (1, 2) Or age Not Between 1 And 2") == (
        "(((NOT (first_name IS NULL)) AND (NOT (age IN (1, 2)))) OR (NOT (age BETWEEN 1 AND 2)))"
    )
    assert where_of("age between (1, 2)") == "(age BETWEEN 1 AND 2)"


def test_negative_and_decimal_numbers():
    assert where_of("score > -1.5 and age > -(2)") == "((score > -1.5) AND (age > -2))"
    assert where_of("age > -user_id") == "(age > (-user_id))"


def test_comments_and_statements_over_several_lines():
    compiled = compile_text("# header\ncompleteness c on users:  # trailing\n    first_name,\n\n    age\n")
    assert [r.name for r in compiled.suite.rules] == ["c"]


def test_quoted_names_with_a_backquote_and_a_space():
    from gryph.compiler.plan.data_types import INTEGER, STRING, schema

    schemas = {"t": schema(("first name", STRING), ("a`b", INTEGER), ("select", INTEGER))}
    plan = format_plan(
        compile_text(
            "profiling p on t: count(*) as n where `first name` = 'x' and `a``b` > 1 and `select` = 2", schemas
        ).plan
    )
    assert "((`first name` = 'x') AND (`a``b` > 1)) AND (select = 2)" in plan


def _scalars(plan):
    """Every scalar node reachable from the plan's queries."""
    import dataclasses

    seen = []

    def visit(node):
        if isinstance(node, tuple):
            for item in node:
                visit(item)
            return
        if not dataclasses.is_dataclass(node):
            return
        seen.append(node)
        for f in dataclasses.fields(node):
            visit(getattr(node, f.name))

    for query in plan.queries:
        visit(query.relation)
    return seen


def test_in_and_between_operands_share_one_type():
    # an integer column tested against a decimal is compared as a double, its own side included
    assert where_of("age in (1, 2.5)") == "(CAST(age AS double) IN (1.0, 2.5))"
    assert where_of("age between 1 and 2.5") == "(CAST(age AS double) BETWEEN 1.0 AND 2.5)"
