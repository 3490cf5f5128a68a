"""Long IN lists of plain values are read in one match (compiler/language/value_lists.py): the plan is the
one the item-by-item parse builds, errors point at the value itself, and 100,000 values parse."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from gryph.client import runner
from gryph.compiler.errors import InvalidInput
from tests.compiler.compiler_support import compile_text, where_of

ROOT = Path(__file__).resolve().parents[2]

LISTS = [
    ("first_name", "'a'"),
    ("first_name", """'a', "b'c", 'd\\'e', '', 'ünï', 'x,y', 'p)q'"""),
    ("age", "1, 2.5, 1e3, .5, 3., 0, 007, 2E-2"),
    ("score", "1 ,2,  3\n , 4"),
    ("age", "1, 2.5"),  # the values meet in one type, as the slow path has it
]


@pytest.mark.parametrize("column, values", LISTS)
def test_same_plan_as_the_item_by_item_parse(column, values):
    # a comment between the values keeps the list from matching as one token
    slow = values.replace(",", ", # one item at a time\n", 1) if "," in values else values + " # alone\n"
    assert where_of(f"{column} in ({values})") == where_of(f"{column} in ({slow})")
    assert where_of(f"{column} not in ({values})") == where_of(f"{column} not in ({slow})")


def test_values_by_hand():
    assert where_of("""first_name in ('a', "b'c", 'd\\'e')""") == "(first_name IN ('a', 'b\\'c', 'd\\'e'))"
    assert where_of("age in (1, 2)") == "(age IN (1, 2))"
    assert where_of("age in (1, 2.5)") == "(CAST(age AS double) IN (1.0, 2.5))"


@pytest.mark.parametrize(
    "values, plan",
    [
        ("1, -2", "(age IN (1, -2))"),
        ("1, null", "(age IN (1, NULL))"),
        ("1, abs(2)", "(age IN (1, abs(2)))"),
        ("1, 2 + 3", "(age IN (1, (2 + 3)))"),
        ("1, 4ms", "(age IN (1, 4))"),
    ],
)
def test_lists_with_other_items_take_the_item_by_item_parse(values, plan):
    assert where_of(f"age in ({values})") == plan


def test_a_value_error_points_at_the_value():
    text = "profiling p on users: count(*) as n where age in (1,\n  2, 99999999999999999999, 3)"
    with pytest.raises(InvalidInput) as error:
        compile_text(text)
    assert error.value.code == "NUMBER_TOO_LARGE"
    assert (error.value.line, error.value.column) == (2, 6)
    assert error.value.text == "99999999999999999999"


@pytest.mark.parametrize("comment", ["", " # one item at a time\n"])
def test_a_type_error_points_at_the_value(comment):
    text = f"profiling p on users: count(*) as n where first_name in ('a',{comment} 2)"
    with pytest.raises(InvalidInput) as error:
        compile_text(text)
    assert error.value.code == "TYPE_MISMATCH" and error.value.text == "2"
    assert (error.value.line, error.value.column) == (
        text.count("\n", 0, text.index(" 2)")) + 1,
        len(text[: text.index(" 2)")].split("\n")[-1]) + 2,
    )


def test_one_hundred_thousand_values(tmp_path):
    with open(ROOT / "examples/data/users.csv", encoding="utf-8", newline="") as handle:
        names = [row["first_name"] for row in csv.DictReader(handle)]
    wanted = sorted(set(names))[:3]
    values = [f"'absent{i}'" for i in range(100_000)] + [f"'{name}'" for name in wanted]
    random.Random(7).shuffle(values)
    suite = tmp_path / "long.dq"
    suite.write_text(
        "suite long_list\n"
        f'source users = csv("{ROOT / "examples/data/users.csv"}", schema = "user_id bigint, first_name string, '
        'last_name string, address string, email string, phone string, post_code string")\n'
        f"profiling p on users: count(*) as n where first_name in ({', '.join(values)})\n",
        encoding="utf-8",
    )
    result = runner.run(suite)
    assert result.rules[0].metrics() == [{"n": sum(name in wanted for name in names)}]
