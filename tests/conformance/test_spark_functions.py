"""Spark SQL functions as rules call them, on DuckDB and on a real Spark Connect server.

Every case is a rule expression and its value on each row of ``ROWS`` (or of the whole table
for aggregates), worked out by hand from Spark 4's documented semantics; both engines must give
exactly that. Errors a rule's functions can make are located (file, line, column).
"""

from __future__ import annotations

import datetime as dt
import math

import pyarrow as pa
import pytest

from gryph.client import load_suite, run
from gryph.compiler.compile import compile_suite
from gryph.compiler.errors import InvalidInput
from gryph.compiler.lowering import Options
from gryph.compiler.plan import format_plan
from gryph.compiler.plan.data_types import DATE, DOUBLE, INTEGER, STRING, TIMESTAMP, array, schema
from gryph.compiler.suites.native_suites import parse_suite
from tests.support.comparison import same

N = None
NAN = math.nan
ROWS = pa.table(
    {
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "s": pa.array(["Ünïcødé", "日本,,x,", "", None], pa.string()),
        "i": pa.array([7, -7, 0, None], pa.int64()),
        "x": pa.array([2.5, -2.5, NAN, None], pa.float64()),
        # a leap day, a year's last day, a 31-day month's end
        "d": pa.array([dt.date(2024, 2, 29), dt.date(2023, 12, 31), dt.date(2024, 1, 31), None], pa.date32()),
        "ts": pa.array(
            [
                dt.datetime(2024, 2, 29, 13, 4, 5, 123456),
                dt.datetime(1969, 12, 31, 23, 59, 59, 500000),
                dt.datetime(2024, 1, 1),
                None,
            ],
            pa.timestamp("us"),
        ),
        "txt": pa.array(["2024-02-29", "2023-12-31 10:00:00", "soon", None], pa.string()),
        "arr": pa.array([[1, None], [], [3], None], pa.list_(pa.int64())),
    }
)

ROW_CASES = {
    # strings: characters, not bytes ('日本,,x,' has 6)
    "lpad(s, 9, 'ab')": ["abÜnïcødé", "aba日本,,x,", "ababababa", N],
    "lpad(s, 2)": ["Ün", "日本", "  ", N],  # longer text is cut; the pad is a space by default
    "rpad(s, i, '-')": ["Ünïcødé", "", "", N],  # a negative length gives ''
    "instr(s, 'ï')": [3, 0, 0, N],
    "locate(',', s)": [0, 3, 0, N],
    "left(s, 2)": ["Ün", "日本", "", N],
    "right(s, i)": ["Ünïcødé", "", "", N],  # 7 of 7 characters; '' for zero and below
    "reverse(s)": ["édøcïnÜ", ",x,,本日", "", N],
    "repeat(s, 2)": ["ÜnïcødéÜnïcødé", "日本,,x,日本,,x,", "", N],
    "concat_ws('|', s, null, 'z')": ["Ünïcødé|z", "日本,,x,|z", "|z", "z"],
    "char_length(s)": [7, 6, 0, N],
    "character_length(s)": [7, 6, 0, N],
    # split keeps empty parts, trailing ones too; indexes are 0-based, past the end is NULL
    "size(split(s, ','))": [1, 4, 1, N],
    "split(s, ',')[0]": ["Ünïcødé", "日本", "", N],
    "split(s, ',')[3]": [N, "", N, N],
    "split(s, ',')": [["Ünïcødé"], ["日本", "", "x", ""], [""], N],
    # regexes: '' when nothing matches (not NULL); $1 in a replacement is the group
    "regexp_extract(s, '(n)(ï)', 2)": ["ï", "", "", N],
    "regexp_extract(s, '本(,*)x', 1)": ["", ",,", "", N],
    "regexp_extract(s, '([a-z]+)')": ["n", "x", "", N],  # group 1 by default
    "regexp_replace(s, '([,n])', '<$1>')": ["Ü<n>ïcødé", "日本<,><,>x<,>", "", N],
    "startswith(s, 'Ü')": [True, False, False, N],
    "endswith(s, ',')": [False, True, False, N],
    "contains(s, '')": [True, True, True, N],
    # conditions and NULLs
    "nvl(i, -1)": [7, -7, 0, -1],
    "ifnull(s, '?')": ["Ünïcødé", "日本,,x,", "", "?"],
    "nvl2(i, 'has', 'none')": ["has", "has", "has", "none"],
    "nullif(i, 0)": [7, -7, N, N],
    "if(i > 0, 'pos', 'not')": ["pos", "not", "not", "not"],  # NULL > 0 is not true: the else branch
    "isnull(s)": [False, False, False, True],
    "isnotnull(x)": [True, True, True, False],  # NaN is a value
    "nanvl(x, 0)": [2.5, -2.5, 0.0, N],
    "isnan(x)": [False, False, True, False],
    # numbers: mod keeps the dividend's sign, pmod is never negative for a positive divisor
    "mod(i, 3)": [1, -1, 0, N],
    "pmod(i, 3)": [1, 2, 0, N],
    "pmod(i, -3)": [1, -1, 0, N],  # Spark: r = -7 % -3 = -1 < 0, so (r + n) % n = -4 % -3 = -1
    "pmod(i, 0)": [N, N, N, N],  # no remainder by zero: NULL (Spark alone would fail under ANSI)
    "pmod(x, 2)": [0.5, 1.5, NAN, N],
    "ln(i)": [math.log(7), N, N, N],  # NULL at zero and below
    "log10(x)": [math.log10(2.5), N, NAN, N],
    "log2(abs(i) + 1)": [3.0, 3.0, 0.0, N],
    "exp(x)": [math.exp(2.5), math.exp(-2.5), NAN, N],
    "signum(i)": [1.0, -1.0, 0.0, N],
    "sign(x)": [1.0, -1.0, NAN, N],
    # dates: 2024-02-29 is a Thursday; ISO week 52 of 2023 ends on Sunday 2023-12-31
    "dayofweek(d)": [5, 1, 4, N],
    "dayofmonth(d)": [29, 31, 31, N],
    "dayofyear(d)": [60, 365, 31, N],
    "weekofyear(d)": [9, 52, 5, N],
    "quarter(d)": [1, 4, 1, N],
    "last_day(d)": ["2024-02-29", "2023-12-31", "2024-01-31", N],
    "date_add(d, i)": ["2024-03-07", "2023-12-24", "2024-01-31", N],
    "date_sub(d, 1)": ["2024-02-28", "2023-12-30", "2024-01-30", N],
    "add_months(d, 12)": ["2025-02-28", "2024-12-31", "2025-01-31", N],  # no Feb 29 in 2025
    "add_months(d, -1)": ["2024-01-29", "2023-11-30", "2023-12-31", N],
    "datediff(d, '2024-01-01')": [31 + 28, -1, 30, N],
    "datediff(txt, d)": [0, 0, N, N],  # time text reads as a date; text that is no date is NULL
    "date_format(ts, 'yyyy-MM-dd HH:mm:ss')": ["2024-02-29 13:04:05", "1969-12-31 23:59:59", "2024-01-01 00:00:00", N],
    "date_format(ts, 'yyyyMMdd')": ["20240229", "19691231", "20240101", N],
    "date_format(ts, 'EEE d MMM yy, h a, SSSSSS')": [
        "Thu 29 Feb 24, 1 PM, 123456",
        "Wed 31 Dec 69, 11 PM, 500000",
        "Mon 1 Jan 24, 12 AM, 000000",
        N,
    ],
    "date_format(d, 'MM/dd')": ["02/29", "12/31", "01/31", N],
    # whole seconds rounded down: half a second before 1970 is second -1
    "unix_timestamp(ts)": [1709211845, -1, 1704067200, N],
    "from_unixtime(i)": ["1970-01-01 00:00:07", "1969-12-31 23:59:53", "1970-01-01 00:00:00", N],
    "from_unixtime(i * 86400 * 365, 'yyyy')": ["1976", "1963", "1970", N],
    "to_timestamp(txt)": ["2024-02-29 00:00:00", "2023-12-31 10:00:00", N, N],
    # collections: NOT FOUND in an array holding a NULL is unknown (NULL), as in SQL's IN
    "size(arr)": [2, 0, 1, N],
    "array_contains(arr, 3)": [N, False, True, N],
    "array_contains(arr, 1)": [True, False, False, N],
    # the elements in their place, a NULL one kept (the scalar conformance cases repeat them)
    "array_distinct(arr)": [[1, N], [], [3], N],
    "size(array_distinct(arr))": [2, 0, 1, N],
}


def rows_suite() -> str:
    items = ", ".join(f"{expr} as c{n}" for n, expr in enumerate(ROW_CASES))
    return f"profiling p on t: select {items} from t order by id"


def test_row_functions(dq_engine):
    result = run(load_suite(rows_suite(), {"t": ROWS}), dq_engine)
    rows = result.metrics["p"]
    wrong = {}
    for n, (expr, expected) in enumerate(ROW_CASES.items()):
        got = [row[f"c{n}"] for row in rows]
        try:
            same(got, expected, expr)
        except AssertionError:
            wrong[expr] = (got, expected)
    assert not wrong, "\n".join(f"{e}: got {g!r}, expected {w!r}" for e, (g, w) in wrong.items())


# Aggregates over v: 1, 2, 2, 3, 4, NULL, 5 (six values, five distinct) and the constant k
VALUES = pa.table(
    {
        "v": pa.array([1, 2, 2, 3, 4, None, 5], pa.int64()),
        "f": pa.array([1.5, NAN, -0.5, None, 2.5, 0.0, 1.5], pa.float64()),
        "k": pa.array(["same", "same", None, "same", "same", "same", None], pa.string()),
    }
)
AGGREGATE_CASES = {
    "approx_count_distinct(v)": 5,
    "approx_count_distinct(v, 0.05)": 5,  # exact, whatever error is allowed
    "approx_count_distinct(f)": 5,  # 1.5, NaN, -0.5, 2.5, 0.0 (NaN is one value, NULL none)
    # percentile_approx: the smallest value with at least p of the six values at or below it:
    # p = 0.5 needs 3 values -> 2; 0.25 needs 1.5, so 2 -> 2; 0.75 needs 4.5, so 5 -> 4; 1.0 -> 5
    "percentile_approx(v, 0.5)": 2,
    "percentile_approx(v, 0.25)": 2,
    "percentile_approx(v, 0.75, 10000)": 4,
    "approx_percentile(v, 1.0)": 5,
    "percentile_approx(v, 0)": 1,
    # NaN sorts above every number: -0.5, 0.0, 1.5, 1.5, 2.5, NaN; 0.9 needs 5.4 values -> NaN
    "percentile_approx(f, 0.9)": NAN,
    "percentile_approx(f, 0.5)": 1.5,
    "count_if(v > 2)": 3,
    "count_if(f is nan)": 1,
    # first/last/any_value: a non-NULL value; the only one here, so the same on every engine
    "first(k)": "same",
    "last(k, true)": "same",
    "any_value(k)": "same",
}


def test_aggregate_functions(dq_engine):
    items = ", ".join(f"{expr} as a{n}" for n, expr in enumerate(AGGREGATE_CASES))
    result = run(load_suite(f"profiling p on t: select {items} from t", {"t": VALUES}), dq_engine)
    (row,) = result.metrics["p"]
    got = {expr: row[f"a{n}"] for n, expr in enumerate(AGGREGATE_CASES)}
    same(got, AGGREGATE_CASES, "aggregates")


def test_aggregates_by_group_and_filtered(dq_engine):
    # groups: 'same' has v 1, 2, 3, 4 and NULL; NULL has 2, 5. where v > 1 leaves 2, 3, 4 and 2, 5
    suite = (
        "profiling p on t: select k, percentile_approx(v, 0.5) as median, approx_count_distinct(v) as n, "
        "count_if(v % 2 = 0) as evens from t where v > 1 group by k order by k"
    )
    result = run(load_suite(suite, {"t": VALUES}), dq_engine)
    assert result.metrics["p"] == [
        {"k": None, "median": 2, "n": 2, "evens": 1},
        {"k": "same", "median": 3, "n": 3, "evens": 2},
    ]


def test_fused_aggregates_keep_their_own_condition(dq_engine):
    # a where clause and count_if's condition both hold: v > 1 and even -> 2, 2, 4
    suite = "profiling p on t: select count_if(v % 2 = 0) as evens, first(k) as k from t where v > 1"
    result = run(load_suite(suite, {"t": VALUES}), dq_engine)
    assert result.metrics["p"] == [{"evens": 3, "k": "same"}]


def test_current_time_is_the_runs_start_on_both_engines(dq_engine):
    suite = (
        "profiling p on t: select current_date() as day, current_timestamp() as at, now() as now, "
        "unix_timestamp() as secs, datediff(current_date(), d) as age from t order by id"
    )
    result = run(load_suite(suite, {"t": ROWS}), dq_engine)
    rows = result.metrics["p"]
    day, at, secs = rows[0]["day"], rows[0]["at"], rows[0]["secs"]
    assert all(r["day"] == day and r["at"] == at and r["now"] == at and r["secs"] == secs for r in rows)
    assert at.startswith(day) and secs == int(dt.datetime.fromisoformat(at).replace(tzinfo=dt.timezone.utc).timestamp())
    today = dt.date.fromisoformat(day)
    assert [r["age"] for r in rows] == [
        (today - dt.date(2024, 2, 29)).days,
        (today - dt.date(2023, 12, 31)).days,
        (today - dt.date(2024, 1, 31)).days,
        N,
    ]


# -- compile-time errors: code, line and column ----------------------------------------------------

T = schema(("s", STRING), ("i", INTEGER), ("x", DOUBLE), ("d", DATE), ("ts", TIMESTAMP), ("arr", array(INTEGER)))


def compile_text(text: str, options: Options | None = None):
    return compile_suite(parse_suite(text, known_sources=("t",)), {"t": T}, options or Options())


def error_of(expr: str, line_prefix: str = "profiling p on t:\n  select ") -> tuple[InvalidInput, int]:
    """The error compiling ``expr`` on line 2 of a rule, and the column ``expr`` starts at."""
    with pytest.raises(InvalidInput) as info:
        compile_text(f"{line_prefix}{expr} as v")
    return info.value, len(line_prefix.split("\n")[-1]) + 1


@pytest.mark.parametrize(
    "expr, code, words",
    [
        ("lpad(s)", "WRONG_ARITY", "lpad() takes 2 to 3"),
        ("nvl(i, 1, 2)", "WRONG_ARITY", "nvl() takes 2"),
        ("current_date(1)", "WRONG_ARITY", "takes 0"),
        ("lpad(s, 'x')", "TYPE_MISMATCH", "argument 2 must be an integer"),
        ("instr(i, 'a')", "TYPE_MISMATCH", "argument 1 must be a string"),
        ("if(i, 1, 2)", "TYPE_MISMATCH", "argument 1 must be true or false"),
        ("if(i > 0, 1, 'a')", "TYPE_MISMATCH", "same type"),
        ("size(s)", "TYPE_MISMATCH", "an array or a map"),
        ("array_contains(arr, 'a')", "TYPE_MISMATCH", "compare with the elements"),
        ("date_add(d, 1.5)", "TYPE_MISMATCH", "argument 2 must be an integer"),
        ("unix_timestamp(s)", "TYPE_MISMATCH", "a date or timestamp"),
        ("ln(s)", "TYPE_MISMATCH", "must be a number"),
        ("date_format(ts, 'yyyy-MM-dd G')", "UNSUPPORTED_FORMAT", "'G'"),
        ("date_format(ts, 'YYYY')", "UNSUPPORTED_FORMAT", "'Y'"),
        ("date_format(ts, 'yyy')", "UNSUPPORTED_FORMAT", "'yyy'"),
        ("date_format(ts, 'HH[:mm]')", "UNSUPPORTED_FORMAT", "'['"),
        ('date_format(ts, "HH \'oclock")', "UNSUPPORTED_FORMAT", "never closed"),
        ("from_unixtime(i, 'uuuu')", "UNSUPPORTED_FORMAT", "'u'"),
        ("date_format(ts, s)", "NOT_CONSTANT", "argument 2"),
        ("regexp_extract(s, '(a)(b)', 3)", "REGEX_GROUP", "has 2 group(s)"),
        ("regexp_extract(s, '(?:a)(?<n>b)\\\\(', 3)", "REGEX_GROUP", "has 1 group(s)"),
        ("regexp_extract(s, 'a', -1)", "REGEX_GROUP", "group -1"),
        ("regexp_extract(s, '[a-z]+')", "REGEX_GROUP", "group 1 does not exist"),  # group 1 by default
        ("regexp_extract(s, s, 0)", "NOT_CONSTANT", "argument 2"),
        ("regexp_replace(s, '(a)', '$2')", "BAD_REPLACEMENT", "group 2"),
        ("regexp_replace(s, 'a', 'US$')", "BAD_REPLACEMENT", "'$'"),
        # aggregates
        ("percentile_approx(i, 1.5)", "BAD_FRACTION", "1.5"),
        ("percentile_approx(i, x)", "NOT_CONSTANT", "argument 2"),
        ("percentile_approx(i, 0.5, 0)", "BAD_ACCURACY", "positive"),
        ("percentile_approx(s, 0.5)", "TYPE_MISMATCH", "must be a number"),
        ("count_if(i)", "TYPE_MISMATCH", "true or false"),
        ("first(s, i)", "TYPE_MISMATCH", "true or false"),
        ("approx_count_distinct(distinct i)", "DISTINCT_NOT_ALLOWED", "approx_count_distinct"),
    ],
)
def test_bad_arguments_are_located(expr, code, words):
    error, column = error_of(expr)
    assert (error.code, error.line, error.column) == (code, 2, column), str(error)
    assert words in error.message, error.message


def test_percentile_list_is_not_a_function_yet():
    error, _ = error_of("percentile_approx(i, array(0.25, 0.5))")
    assert error.code == "UNKNOWN_FUNCTION" and "array" in error.message


def test_unknown_function_is_located_with_a_hint():
    error, column = error_of("i + date_fromat(ts, 'yyyy')")
    assert (error.code, error.line, error.column) == ("UNKNOWN_FUNCTION", 2, column + len("i + "))
    assert error.text.startswith("date_fromat(") and "date_format" in error.hint


def test_a_function_neither_engine_runs_stays_unknown():
    error, column = error_of("initcap(s)")
    assert (error.code, error.line, error.column) == ("UNKNOWN_FUNCTION", 2, column)


def test_current_time_comes_from_the_compile_options():
    noon = int(dt.datetime(2024, 2, 29, 12, 0, tzinfo=dt.timezone.utc).timestamp() * 1000)
    compiled = compile_text(
        "profiling p on t: select current_timestamp() as at, current_date() as day from t", Options(now_ms=noon)
    )
    text = format_plan(compiled.plan)
    assert "2024-02-29 12:00:00" in text and "2024-02-29" in text.replace("2024-02-29 12:00:00", ""), text
