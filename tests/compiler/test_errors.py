"""Parser and checker errors: stable code, line and column, offending text and a useful hint."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput, with_article
from tests.compiler.compiler_support import compile_text


def error_of(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        compile_text(text)
    return info.value


def col(line: str, needle: str) -> int:
    """1-based column of ``needle`` in ``line`` (so expected columns are not counted by hand)."""
    assert needle in line
    return line.index(needle) + 1


# -- syntax --------------------------------------------------------------------------------


def test_bad_token():
    text = "completeness c on users: first_name $ age"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, col(text, "$"))
    assert error.text.startswith("$")
    assert "Traceback" not in str(error) and "textx" not in type(error).__module__.lower()


@pytest.mark.parametrize("quote", ["'", '"'])
def test_unterminated_string(quote):
    text = f"profiling p on users: count(*) as n where first_name = {quote}abc"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, col(text, quote + "abc"))


def test_trailing_comma_at_end_of_input():
    text = "completeness c on users: first_name,"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, len(text) + 1)
    assert error.text == "end of input"


@pytest.mark.parametrize(
    "text, named",
    [
        ("profiling p on users: count(*) as n where age >", ["a name", "a number", "a string"]),
        ("completeness c on users: first_name age", ["an operator", "'.', '['", "','"]),
        ("profiling p on users: count(*) as n where address.", ["a name"]),
    ],
)
def test_syntax_hint_names_what_could_come_next(text, named):
    hint = error_of(text).hint
    assert hint.startswith("expected ")
    for what in named:
        assert what in hint, (what, hint)


def test_syntax_error_on_line_three_of_a_multi_line_rule():
    text = "completeness c on users:\n    first_name,\n    age $ user_id"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 3, col("    age $ user_id", "$"))


def test_a_rule_that_does_not_parse_is_an_error_not_a_skipped_step():
    with pytest.raises(InvalidInput):
        compile_text("completeness ok on users: age\nprofiling bad on users: count(*) where where")


@pytest.mark.parametrize(
    "text, word",
    [
        ("d\u0131stinctness d on users: first_name", "d\u0131stinctness"),  # dotless i
        ("\u017fource s = csv('users.csv')", "\u017fource"),  # long s
        ("prof\u0131l\u0131ng p on users: count(*) as n", "prof\u0131l\u0131ng"),
        ("\u0130f_x c on users: first_name", "\u0130f_x"),  # dotted capital I
        ("profiling p on users: count(*) as n where first_name li\u212ae 'a%'", "li\u212ae"),  # Kelvin sign
        ("profiling p on users: count(*) as n where first_name \u0131s null", "\u0131s null"),
    ],
)
def test_a_keyword_spelled_with_a_case_folding_letter_is_a_syntax_error(text, word):
    """Unicode case folding reads ı, İ, ſ and K as i, s and k: keywords match ASCII letters only."""
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, col(text, word))


def test_a_case_folding_letter_in_a_name_is_kept():
    compiled = compile_text("completeness k\u0131l\u0131\u00e7 on users: first_name")
    assert [r.name for r in compiled.suite.rules] == ["k\u0131l\u0131\u00e7"]


# -- names ---------------------------------------------------------------------------------


def test_unknown_column_with_did_you_mean():
    text = "completeness c on users: first_nmae"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("UNKNOWN_COLUMN", 1, col(text, "first_nmae"))
    assert error.text == "first_nmae"
    assert "did you mean" in error.hint and "'first_name'" in error.hint


def test_unknown_column_on_line_three():
    text = "# a comment\ncompleteness c on users:\n    first_name,\n    age, frist_name"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("UNKNOWN_COLUMN", 4, col("    age, frist_name", "frist_name"))
    assert "'first_name'" in error.hint


def test_unknown_column_in_a_profiling_where_on_line_three():
    text = "profiling p on users:\n  select age,\n    count(*) as n where firstname = 'x' group by age"
    error = error_of(text)
    line3 = text.splitlines()[2]
    assert (error.code, error.line, error.column) == ("UNKNOWN_COLUMN", 3, col(line3, "firstname"))
    assert "'first_name'" in error.hint


def test_unknown_qualified_column_in_accuracy_on_line_three():
    text = "accuracy a on users, orders:\n    users.user_id = orders.user_id\n    and users.frist_name = orders.country"
    error = error_of(text)
    line3 = text.splitlines()[2]
    assert (error.code, error.line) == ("UNKNOWN_COLUMN", 3)
    # the suffix `.frist_name` (its dot or its name) is what is wrong
    assert error.column in (col(line3, ".frist_name"), col(line3, "frist_name"))
    assert "'first_name'" in error.hint


def test_unknown_source():
    text = 'source users2 = csv("u.csv", schema = "user_id bigint")\ncompleteness c on user2: user_id'
    error = error_of(text)
    assert (error.code, error.line) == ("UNKNOWN_SOURCE", 2)
    assert "'users2'" in error.hint


def test_unknown_source_points_at_the_name_and_suggests_frames():
    text = "completeness c on userz: first_name"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("UNKNOWN_SOURCE", 1, col(text, "userz"))
    assert "'users'" in error.hint


def test_unknown_function():
    text = "profiling p on users: frobnicate(age) as x"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("UNKNOWN_FUNCTION", 1, col(text, "frobnicate"))


def test_unknown_function_suggests_the_closest():
    text = "profiling p on users: uper(first_name) as x"
    error = error_of(text)
    assert error.code == "UNKNOWN_FUNCTION" and "'upper'" in error.hint


@pytest.mark.parametrize("call", ["rows(*)", "rowz(*)", "rowz(age)"])
def test_a_checks_rows_in_a_rule_says_how_a_query_counts_rows(call):
    text = f"profiling p on users: {call} as x"
    error = error_of(text)
    assert (error.code, error.column) == ("UNKNOWN_FUNCTION", col(text, call))
    assert error.hint == "rows(...) counts rows in a check: a query counts them with count(*)"


@pytest.mark.parametrize("call", ["upper(first_name, age)", "max(age, 1)", "substring(first_name)"])
def test_wrong_arity(call):
    text = f"profiling p on users: {call} as x"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("WRONG_ARITY", 1, col(text, call))


def test_like_on_a_number():
    text = "profiling p on users: count(*) as n where age like 'a%'"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("TYPE_MISMATCH", 1, col(text, "age like"))
    assert "cast" in error.hint


def test_aggregate_in_where():
    text = "profiling p on users: count(*) as n where max(age) > 3"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("AGGREGATE_IN_WHERE", 1, col(text, "max(age)"))
    assert "HAVING" in error.hint


def test_aggregate_in_where_on_line_four():
    text = "profiling p on users: count(*) as n\nprofiling p2 on users:\n    age where age > 1 and\n      sum(age) > 3"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("AGGREGATE_IN_WHERE", 4, col("      sum(age) > 3", "sum"))


def test_aggregate_in_completeness_selection():
    error = error_of("completeness c on users: max(age)")
    assert error.code == "AGGREGATE_NOT_ALLOWED"


def test_target_role_in_a_completeness_rule():
    text = "completeness c on users: target.first_name"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SOURCE_NOT_ALLOWED", 1, col(text, "target"))
    assert "users" in error.hint


def test_target_source_given_to_a_completeness_rule():
    error = error_of("completeness c on users, orders: first_name")
    assert error.line == 1


def test_duplicate_rule_names():
    text = "completeness c on users: first_name\ncompleteness c on users: age"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("DUPLICATE_RULE", 2, 1)


def test_unknown_detail_option():
    text = 'completeness c on users: first_name with totl = "x"'
    error = error_of(text)
    assert (error.code, error.line) == ("UNKNOWN_DETAIL", 1)
    assert error.text == "totl" and "'total'" in error.hint


def test_unknown_detail_option_on_line_three():
    text = 'completeness c on users:\n    first_name,\n    age with totl = "x"'
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("UNKNOWN_DETAIL", 3, col('    age with totl = "x"', "totl"))


def test_bad_duration_detail_points_at_the_value():
    text = 'timeliness t on orders: ts, end_ts\n   with threshold = "abc"'
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("BAD_DETAIL", 2, col('   with threshold = "abc"', '"abc"'))


def test_timeliness_takes_one_or_two_times():
    error = error_of("timeliness t on orders: ts, end_ts, order_id")
    assert error.code == "WRONG_ARITY"


def test_percentile_out_of_range():
    error = error_of("timeliness t on orders: ts, end_ts with percentile.values = (0.5, 1.5)")
    assert error.code == "BAD_DETAIL"


def test_duplicate_selection_name():
    text = "timeliness t on orders:\n    ts,\n    ts"
    error = error_of(text)
    assert error.code == "DUPLICATE_NAME" and error.line in (2, 3)


def test_profiling_from_conflicts_with_on():
    assert error_of("profiling p on users: count(*) as n from orders").code == "CONFLICTING_SOURCE"


def test_not_grouped_column():
    text = "profiling p on users: first_name, count(*) as n group by age"
    error = error_of(text)
    assert error.code == "NOT_GROUPED" and error.line == 1


def test_arithmetic_on_a_string_hints_concat():
    error = error_of("profiling p on users: first_name + 1 as x")
    assert error.code == "TYPE_MISMATCH" and "concat" in error.hint


def test_number_too_large():
    error = error_of("profiling p on users: count(*) as n where age > 99999999999999999999")
    assert error.code == "NUMBER_TOO_LARGE"


def test_errors_print_file_line_column():
    error = error_of("completeness c on users: first_nmae")
    assert str(error).startswith("<input>:1:26: error UNKNOWN_COLUMN")
    assert error.to_dict()["column"] == 26


def test_empty_suite():
    error = error_of("   \n# nothing but a comment\n")
    assert (error.code, error.line, error.column) == ("EMPTY_SUITE", 1, 1)


def test_ungrouped_column_beside_aggregates():
    text = "profiling p on users: max(age) - min(age) as spread, first_name"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("NOT_GROUPED", 1, col(text, "first_name"))
    assert "first_name" in error.hint


def test_comparisons_do_not_chain():
    text = "profiling p on users: count(*) as n where age = 1 = 2"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, text.rindex("= 2") + 1)


def test_not_only_starts_a_condition():
    text = "profiling p on users: count(*) as n where age + not age > 1"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("SYNTAX_ERROR", 1, col(text, "not age"))
    assert "parentheses" in error.message


def test_a_column_named_twice_through_a_star():
    text = "profiling p on users: select *, age limit 3"
    error = error_of(text)
    # * already brings age: the second age is the duplicate, and the error stands on it
    assert (error.code, error.column) == ("DUPLICATE_NAME", text.rindex("age") + 1)


@pytest.mark.parametrize(
    "word,said",
    [("avro", "an avro"), ("orc", "an orc"), ("iceberg", "an iceberg"), ("excel", "an excel"),
     ("parquet", "a parquet"), ("csv", "a csv"), ("delta", "a delta"), ("uniqueness", "a uniqueness"),
     ("accuracy", "an accuracy"), ("integer", "an integer"), ("smtp", "an smtp"), ("sql", "an sql"),
     ("tsv", "a tsv"), ("webhook", "a webhook")],
)  # fmt: skip
def test_a_word_takes_the_article_its_sound_does(word, said):
    assert with_article(word) == said


@pytest.mark.parametrize(
    "rule,code,message",
    [
        ("validity v on users: age[0] > 1", "NOT_INDEXABLE", "cannot index an integer"),
        ("validity v on users: age.x > 1", "NOT_A_STRUCT", "cannot select field 'x' of an integer"),
    ],
)
def test_a_value_that_takes_no_index_is_named_with_its_article(rule, code, message):
    assert (error_of(rule).code, error_of(rule).message) == (code, message)
