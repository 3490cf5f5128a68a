"""Regular expressions are checked at validation: a pattern RE2 (DuckDB) or Java (Spark) refuses, or
that the two read differently, is a located BAD_REGEX before any data is read."""

from __future__ import annotations

import pytest

from gryph.compiler.analysis.sql_reads import check_sql_reads
from gryph.compiler.compile import compile_suite
from gryph.compiler.errors import InvalidInput
from gryph.compiler.lowering import Options
from gryph.compiler.spark_dialect.regex_syntax import pattern_problem
from gryph.compiler.suites.native_suites import parse_suite
from tests.compiler.compiler_support import SCHEMAS, compile_text

# Read alike by both: each was compiled by hand with java.util.regex.Pattern (JDK 17) and by
# DuckDB's regexp_matches.
BOTH_READ = [
    r"^[A-Z][a-z]+@\w+\.com$",
    r"\d{3}-\d{4}",
    r"a{2,}b{1,3}",
    r"\p{L}\pN\p{Lu}",
    r"[\p{L}\d]+",
    r"\x{41}\x41",
    r"\Q(\E",
    r"(?i:ab)(?s).(?m)^a$",
    r"\012",
    r"[]a][^]a][a\]]",
    r"\\1",
    r"[\[]",
    r"a&&b",
    "}]",
    "",
]

# Refused by one engine or read otherwise, with a word of the reason.
NOT_ALIKE = [
    (")", "unexpected )"),  # both refuse: RE2 says why
    ("(?=a)", "perl operator"),  # lookahead: Java only
    (r"\Z", "escape"),  # Java only
    ("a{", "repetition"),  # RE2 reads a literal '{', Java refuses
    ("a{,3}", "repetition"),
    ("(?P<n>a)", "(?P<name>"),  # RE2 only
    (r"\C", r"\C"),  # RE2 only
    (r"\12", "backreference"),  # octal to RE2, group 12 (or 1) to Java
    (r"\0", "octal"),  # Java refuses
    ("(?U)a", "ungreedy"),  # ungreedy to RE2, Unicode classes to Java
    (r"\v", "vertical"),
    ("[[:alpha:]]", "nested class"),  # POSIX class to RE2, a union to Java
    ("[a-z&&[^e]]", "intersection"),
    (r"\p{Greek}", "general categories"),  # Java writes \p{IsGreek}
    (r"\p{^L}", "general categories"),
]


@pytest.mark.parametrize("pattern", BOTH_READ)
def test_a_pattern_both_engines_read_alike_passes(pattern):
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize("pattern, reason", NOT_ALIKE)
def test_a_pattern_one_engine_refuses_or_reads_otherwise_is_named(pattern, reason):
    problem = pattern_problem(pattern)
    assert problem is not None and reason in problem, problem


def error_of(text: str) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        compile_text(text)
    return info.value


@pytest.mark.parametrize(
    "where, pattern",
    [
        ("first_name rlike ')'", "')'"),
        ("first_name not rlike 'a{'", "'a{'"),
        ("regexp_extract(first_name, '(?=x)', 0) = ''", "'(?=x)'"),
        ("regexp_replace(first_name, '[[:alpha:]]', 'x') = ''", "'[[:alpha:]]'"),
        ("first_name.split('(?U)a') is null", "'(?U)a'"),
    ],
)
def test_a_bad_pattern_in_a_rule_is_located_at_the_pattern(where, pattern):
    text = f"profiling p on users: count(*) as n where {where}"
    error = error_of(text)
    assert (error.code, error.line, error.column) == ("BAD_REGEX", 1, text.index(pattern) + 1)
    assert pattern.strip("'") in error.message and "RE2" in error.hint and "Java" in error.hint


def test_a_computed_pattern_is_left_to_the_run():
    compile_text("profiling p on users: count(*) as n where first_name rlike concat(first_name, '+')")


def test_a_bad_pattern_in_griffin_error_confs_is_refused():
    suite = parse_suite("completeness c on users: first_name", known_sources=tuple(SCHEMAS))
    suite.rules[0].details["error.confs"] = [{"column.name": "first_name", "type": "regex", "values": ["(a"]}]
    with pytest.raises(InvalidInput) as info:
        compile_suite(suite, dict(SCHEMAS), Options())
    assert info.value.code == "BAD_REGEX" and "'(a'" in info.value.message


@pytest.mark.parametrize(
    "sql",
    [
        "select count(*) from users where first_name rlike 'a{'",
        "select regexp_extract(first_name, '\\\\12', 0) from users",  # Spark reads '\\12' as \12
        "select split(first_name, '(?P<x>a)') from users",
    ],
)
def test_a_bad_literal_pattern_in_user_sql_is_refused(sql):
    with pytest.raises(InvalidInput) as info:
        check_sql_reads(sql, {"users"}, "measure 'm'", None)
    assert info.value.code == "BAD_REGEX" and info.value.message.startswith("measure 'm': the pattern")
