"""Every scalar node and catalogue function on both engines, with expected values worked out by hand."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pyarrow as pa
import pytest

from gryph.compiler.plan import (
    Between,
    Call,
    Cast,
    Field,
    Fn,
    IfThen,
    In,
    IsNull,
    Like,
    Literal,
    RLike,
)
from gryph.compiler.plan.data_types import (
    BOOLEAN,
    DATE,
    DOUBLE,
    INTEGER,
    NULL,
    STRING,
    TIMESTAMP,
    array,
    decimal,
    map_of,
    struct,
)
from tests.support.comparison import same

NAN = float("nan")
I, D, S, B = INTEGER, DOUBLE, STRING, BOOLEAN


def f(name, dtype):
    return Field(name, dtype)


def lit(value, dtype):
    return Literal(value, dtype)


def call(fn, dtype, *args):
    return Call(fn, tuple(args), dtype)


# --- arithmetic ------------------------------------------------------------------------------


def test_add_widens_32_bit_integers(bench):
    data = {"a": pa.array([1, None, 2147483647], pa.int32()), "b": pa.array([2, 3, 1], pa.int32())}
    assert bench.values(call(Fn.ADD, I, f("a", I), f("b", I)), data) == [3, None, 2147483648]


def test_subtract_and_multiply(bench):
    data = {"a": [5, -1, None], "x": [1.5, NAN, 2.0]}
    assert bench.values(call(Fn.SUBTRACT, I, f("a", I), lit(7, I)), data) == [-2, -8, None]
    assert same(bench.values(call(Fn.MULTIPLY, D, f("x", D), lit(2.0, D)), data), [3.0, NAN, 4.0], tolerance=0)


def test_divide_is_true_division_and_null_on_zero(bench):
    data = {"a": [7, 1, None, 0, -3], "b": [2, 0, 3, 5, -0]}
    assert bench.values(call(Fn.DIVIDE, D, f("a", I), f("b", I)), data) == [3.5, None, None, 0.0, None]
    doubles = {"x": [1.0, NAN, 1.0], "y": [0.0, 1.0, NAN]}
    assert same(bench.values(call(Fn.DIVIDE, D, f("x", D), f("y", D)), doubles), [None, NAN, NAN], tolerance=0)


def test_modulo_keeps_the_dividends_sign(bench):
    data = {"a": [7, -7, 7, -7, 5, None], "b": [3, 3, -3, -3, 0, 2]}
    assert bench.values(call(Fn.MODULO, I, f("a", I), f("b", I)), data) == [1, -1, 1, -1, None, None]
    doubles = {"x": [5.5, -5.5, 1.0], "y": [2.0, 2.0, 0.0]}
    assert bench.values(call(Fn.MODULO, D, f("x", D), f("y", D)), doubles) == [1.5, -1.5, None]


def test_negate(bench):
    assert bench.values(call(Fn.NEGATE, I, f("a", I)), {"a": [1, -2, None]}) == [-1, 2, None]


# --- comparison and logic ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, expected",
    [
        (Fn.EQ, [True, False, None, None]),
        (Fn.NE, [False, True, None, None]),
        (Fn.LT, [False, True, None, None]),
        (Fn.LE, [True, True, None, None]),
        (Fn.GT, [False, False, None, None]),
        (Fn.GE, [True, False, None, None]),
    ],
)
def test_comparisons_are_three_valued(bench, fn, expected):
    data = {"a": [1, 2, None, 3], "b": [1, 3, 1, None]}
    assert bench.values(call(fn, B, f("a", I), f("b", I)), data) == expected


def test_eq_null_safe(bench):
    data = {"a": [1, None, None, 1], "b": [1, None, 2, 2]}
    assert bench.values(call(Fn.EQ_NULL_SAFE, B, f("a", I), f("b", I)), data) == [True, True, False, False]


def test_nan_equals_nan_and_is_above_every_number(bench):
    data = {"x": [NAN, NAN, 1.0], "y": [NAN, 1.0, NAN]}
    assert bench.values(call(Fn.EQ, B, f("x", D), f("y", D)), data) == [True, False, False]
    assert bench.values(call(Fn.GT, B, f("x", D), f("y", D)), data) == [False, True, False]
    assert bench.values(call(Fn.EQ_NULL_SAFE, B, f("x", D), lit(None, D)), data) == [False, False, False]


LOGIC = {"p": [True, True, True, False, False, False, None, None, None], "q": [True, False, None] * 3}


def test_and_or_not_three_valued(bench):
    p, q = f("p", B), f("q", B)
    assert bench.values(call(Fn.AND, B, p, q), LOGIC) == [True, False, None, False, False, False, None, False, None]
    assert bench.values(call(Fn.OR, B, p, q), LOGIC) == [True, True, True, True, False, None, True, None, None]
    assert bench.values(call(Fn.NOT, B, p), LOGIC) == [False] * 3 + [True] * 3 + [None] * 3


# --- NULL and NaN ------------------------------------------------------------------------------


def test_coalesce(bench):
    data = {"a": [None, None, 3], "b": [None, 2, 4]}
    assert bench.values(call(Fn.COALESCE, I, f("a", I), f("b", I), lit(9, I)), data) == [9, 2, 3]


def test_is_nan_is_false_for_null_and_non_floating(bench):
    assert bench.values(call(Fn.IS_NAN, B, f("x", D)), {"x": [NAN, 1.0, None]}) == [True, False, False]
    assert bench.values(call(Fn.IS_NAN, B, f("a", I)), {"a": [1, None]}) == [False, False]
    assert bench.values(call(Fn.IS_NAN, B, f("s", S)), {"s": ["NaN", None]}) == [False, False]


def test_is_null_does_not_take_nan_for_null(bench):
    assert bench.values(IsNull(f("x", D)), {"x": [NAN, None, 0.0]}) == [False, True, False]


# --- strings -----------------------------------------------------------------------------------


def test_upper_lower_unicode(bench):
    data = {"s": ["héllo", "ÉLAN", None]}
    assert bench.values(call(Fn.UPPER, S, f("s", S)), data) == ["HÉLLO", "ÉLAN", None]
    assert bench.values(call(Fn.LOWER, S, f("s", S)), data) == ["héllo", "élan", None]


def test_trims_remove_spaces_only(bench):
    data = {"s": ["  a b  ", "\ta ", None]}
    assert bench.values(call(Fn.TRIM, S, f("s", S)), data) == ["a b", "\ta", None]
    assert bench.values(call(Fn.LTRIM, S, f("s", S)), data) == ["a b  ", "\ta ", None]
    assert bench.values(call(Fn.RTRIM, S, f("s", S)), data) == ["  a b", "\ta", None]


def test_length_counts_characters(bench):
    data = {"s": ["héllo", "", None, "日本語"]}
    assert bench.values(call(Fn.LENGTH, I, f("s", S)), data) == [5, 0, None, 3]


@pytest.mark.parametrize(
    "args, expected",
    [
        ((2, 3), "éll"),
        ((1, 2), "hé"),
        ((0, 2), "hé"),  # Spark reads start 0 as 1
        ((-3, 2), "ll"),
        ((2,), "éllo"),
        ((2, -1), ""),
        ((10, 2), ""),
    ],
)
def test_substring_is_one_based(bench, args, expected):
    expr = call(Fn.SUBSTRING, S, f("s", S), *(lit(a, I) for a in args))
    assert bench.values(expr, {"s": ["héllo", None]}) == [expected, None]


def test_concat_is_null_if_any_part_is_null(bench):
    data = {"a": ["a", None, "ü", "'"], "b": ["b", "x", None, '"'], "n": [1, 2, 3, 4]}
    assert bench.values(call(Fn.CONCAT, S, f("a", S), f("b", S)), data) == ["ab", None, None, "'\""]
    assert bench.values(call(Fn.CONCAT, S, f("a", S), f("n", I)), data) == ["a1", None, "ü3", "'4"]


def test_replace(bench):
    data = {"s": ["a-b-c", None]}
    assert bench.values(call(Fn.REPLACE, S, f("s", S), lit("-", S), lit("+", S)), data) == ["a+b+c", None]
    assert bench.values(call(Fn.REPLACE, S, f("s", S), lit("-", S)), data) == ["abc", None]


def test_like_wildcards_and_backslash_escape(bench):
    data = {"s": ["a_c", "abc", "a%c", "xa_cx", None]}

    def like(pattern):
        return bench.values(Like(f("s", S), lit(pattern, S)), data)

    assert like("a\\_c") == [True, False, False, False, None]
    assert like("a_c") == [True, True, True, False, None]
    assert like("a%") == [True, True, True, False, None]
    assert like("a\\%c") == [False, False, True, False, None]
    assert bench.values(Like(f("s", S), lit("__ö", S)), {"s": ["Ä_ö", "Äö"]}) == [True, False]


def test_rlike_searches_anywhere(bench):
    data = {"s": ["xabcx", "ABC", None, "a.b"]}
    assert bench.values(RLike(f("s", S), lit("b.", S)), data) == [True, False, None, False]  # "a.b": nothing after b
    assert bench.values(RLike(f("s", S), lit("^a", S)), data) == [False, False, None, True]
    assert bench.values(RLike(f("s", S), lit("a\\.b", S)), data) == [False, False, None, True]


# --- numbers -----------------------------------------------------------------------------------


def test_abs(bench):
    assert bench.values(call(Fn.ABS, I, f("a", I)), {"a": [-1, 2, None]}) == [1, 2, None]
    assert bench.values(call(Fn.ABS, D, f("x", D)), {"x": [-1.5]}) == [1.5]


def test_round_half_away_from_zero(bench):
    data = {"x": [2.5, -2.5, 0.5, 1.45, None]}
    assert bench.values(call(Fn.ROUND, D, f("x", D)), data) == [3.0, -3.0, 1.0, 1.0, None]
    data = {"x": [1.25, -1.25, 1234.5]}
    assert bench.values(call(Fn.ROUND, D, f("x", D), lit(1, I)), data) == [1.3, -1.3, 1234.5]
    assert bench.values(call(Fn.ROUND, D, f("x", D), lit(-2, I)), data) == [0.0, -0.0, 1200.0]
    dec = {"m": pa.array([Decimal("2.5"), Decimal("-2.5")], pa.decimal128(3, 1))}
    assert bench.values(call(Fn.ROUND, decimal(3, 0), f("m", decimal(3, 1))), dec) == [3, -3]


def test_floor_and_ceil(bench):
    data = {"x": [2.5, -2.5, None, NAN]}
    assert bench.values(call(Fn.FLOOR, I, f("x", D)), data) == [2, -3, None, None]
    assert bench.values(call(Fn.CEIL, I, f("x", D)), data) == [3, -2, None, None]


def test_sqrt_of_negative_is_nan(bench):
    data = {"x": [4.0, 2.25, -1.0, None]}
    assert same(bench.values(call(Fn.SQRT, D, f("x", D)), data), [2.0, 1.5, NAN, None], tolerance=0)


def test_power(bench):
    data = {"a": [2, 9, None], "b": [10.0, 0.5, 1.0]}
    assert bench.values(call(Fn.POWER, D, f("a", I), f("b", D)), data) == [1024.0, 3.0, None]


def test_least_greatest_skip_nulls(bench):
    data = {"a": [1, None, None], "b": [2, 3, None]}
    assert bench.values(call(Fn.LEAST, I, f("a", I), f("b", I)), data) == [1, 3, None]
    assert bench.values(call(Fn.GREATEST, I, f("a", I), f("b", I)), data) == [2, 3, None]
    nan = {"x": [NAN], "y": [1.0]}
    assert same(bench.values(call(Fn.GREATEST, D, f("x", D), f("y", D)), nan), [NAN], tolerance=0)
    assert bench.values(call(Fn.LEAST, D, f("x", D), f("y", D)), nan) == [1.0]


# --- time --------------------------------------------------------------------------------------

UTC = dt.timezone.utc
MOMENT = dt.datetime(2021, 3, 4, 5, 6, 7, 800000)


@pytest.mark.parametrize(
    "fn, expected",
    [
        (Fn.YEAR, 2021),
        (Fn.MONTH, 3),
        (Fn.DAY, 4),
        (Fn.HOUR, 5),
        (Fn.MINUTE, 6),
        (Fn.SECOND, 7),
    ],
)
def test_time_parts(bench, fn, expected):
    plain = {"ts": pa.array([MOMENT, None], pa.timestamp("us"))}
    assert bench.values(call(fn, I, f("ts", TIMESTAMP)), plain) == [expected, None]
    # a zoned timestamp is read in UTC, whatever zone the column is labelled with
    zoned = {"ts": pa.array([MOMENT.replace(tzinfo=UTC)], pa.timestamp("us", tz="Asia/Tokyo"))}
    assert bench.values(call(fn, I, f("ts", TIMESTAMP)), zoned) == [expected]


def test_time_parts_of_a_date(bench):
    data = {"d": pa.array([dt.date(2021, 3, 4)], pa.date32())}
    assert bench.values(call(Fn.DAY, I, f("d", DATE)), data) == [4]
    assert bench.values(call(Fn.HOUR, I, f("d", DATE)), data) == [0]


def test_to_date(bench):
    data = {"s": ["2021-03-04", "2021-03-04 10:11:12", "nope", None]}
    assert bench.values(call(Fn.TO_DATE, DATE, f("s", S)), data) == ["2021-03-04", "2021-03-04", None, None]
    ts = {"ts": pa.array([MOMENT], pa.timestamp("us"))}
    assert bench.values(call(Fn.TO_DATE, DATE, f("ts", TIMESTAMP)), ts) == ["2021-03-04"]


def test_epoch_millis_reads_timestamps_as_utc(bench):
    plain = {
        "ts": pa.array(
            [dt.datetime(1970, 1, 1, 0, 0, 1, 500000), dt.datetime(2018, 1, 8, 4, 30), None], pa.timestamp("us")
        )
    }
    assert bench.values(call(Fn.EPOCH_MILLIS, I, f("ts", TIMESTAMP)), plain) == [1500, 1515385800000, None]
    zoned = {"ts": pa.array([dt.datetime(2018, 1, 8, 4, 30, tzinfo=UTC)], pa.timestamp("ms", tz="America/New_York"))}
    assert bench.values(call(Fn.EPOCH_MILLIS, I, f("ts", TIMESTAMP)), zoned) == [1515385800000]
    dates = {"d": pa.array([dt.date(1970, 1, 2)], pa.date32())}
    assert bench.values(call(Fn.EPOCH_MILLIS, I, f("d", DATE)), dates) == [86400000]


def test_latency_between_the_first_and_last_representable_times(bench):
    """One time's milliseconds less another's cannot overflow: the widest span is exact."""
    data = {
        "start": pa.array(
            [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), None], pa.timestamp("us")
        ),
        "end": pa.array(
            [dt.datetime(9999, 12, 31, 23, 59, 59, 999999), dt.datetime(1, 1, 1), dt.datetime(2000, 1, 1)],
            pa.timestamp("us"),
        ),
    }
    latency = call(
        Fn.SUBTRACT, I, call(Fn.EPOCH_MILLIS, I, f("end", TIMESTAMP)), call(Fn.EPOCH_MILLIS, I, f("start", TIMESTAMP))
    )
    # 0001-01-01 is -62,135,596,800,000 ms; 9999-12-31 23:59:59.999 is 253,402,300,799,999 ms
    assert bench.values(latency, data) == [315537897599999, -315537897599999, None]


# --- nested data -------------------------------------------------------------------------------

ARRAYS = {"xs": pa.array([[10, 20, 30], [], None], pa.list_(pa.int64()))}


@pytest.mark.parametrize(
    "index, expected",
    [
        (0, [10, None, None]),
        (2, [30, None, None]),
        (3, [None, None, None]),
        (-1, [30, None, None]),
        (-3, [10, None, None]),
        (-4, [None, None, None]),
    ],
)
def test_element_at_on_arrays_is_zero_based(bench, index, expected):
    expr = call(Fn.ELEMENT_AT, I, f("xs", array(I)), lit(index, I))
    assert bench.values(expr, ARRAYS) == expected


def test_element_at_on_maps_by_key(bench):
    data = {"m": pa.array([[("a", 1), ("b", 2)], [], None], pa.map_(pa.string(), pa.int64()))}
    mtype = map_of(S, I)
    assert bench.values(call(Fn.ELEMENT_AT, I, f("m", mtype), lit("b", S)), data) == [2, None, None]
    assert bench.values(call(Fn.ELEMENT_AT, I, f("m", mtype), lit("z", S)), data) == [None, None, None]


def test_get_field_with_an_odd_name(bench):
    stype = struct((("x y", I), ("s", S)))
    data = {"st": pa.array([{"x y": 1, "s": "a"}, None], pa.struct([("x y", pa.int64()), ("s", pa.string())]))}
    assert bench.values(call(Fn.GET_FIELD, I, f("st", stype), lit("x y", S)), data) == [1, None]


# --- casts -------------------------------------------------------------------------------------


def test_cast_floating_to_integer_truncates_toward_zero(bench):
    data = {"x": [2.7, -2.7, NAN, None, 1e30]}
    assert bench.values(Cast(f("x", D), I), data) == [2, -2, None, None, None]
    dec = {"m": pa.array([Decimal("-2.5"), Decimal("9.99")], pa.decimal128(4, 2))}
    assert bench.values(Cast(f("m", decimal(4, 2)), I), dec) == [-2, 9]


def test_cast_from_text_gives_null_when_it_does_not_parse(bench):
    data = {"s": ["12", " 7 ", "1.5", "abc", "-3", None, "1e3"]}
    assert bench.values(Cast(f("s", S), I), data) == [12, 7, None, None, -3, None, None]
    assert same(bench.values(Cast(f("s", S), D), {"s": ["1.5", "NaN", "x"]}), [1.5, NAN, None], tolerance=0)
    assert bench.values(Cast(f("s", S), DATE), {"s": ["2020-02-30", "2020-02-28"]}) == [None, "2020-02-28"]


def test_cast_to_string_and_double(bench):
    assert bench.values(Cast(f("a", I), S), {"a": [12, -3, None]}) == ["12", "-3", None]
    assert bench.values(Cast(f("a", I), D), {"a": [1]}) == [1.0]
    assert bench.values(Cast(f("b", B), S), {"b": [True]}) == ["true"]


# --- the other nodes and literals ---------------------------------------------------------------


def test_if_then(bench):
    x = f("x", I)
    expr = IfThen(
        ((call(Fn.LT, B, x, lit(3, I)), lit("low", S)), (call(Fn.LT, B, x, lit(10, I)), lit("mid", S))),
        lit("none", S),
        S,
    )
    assert bench.values(expr, {"x": [1, 5, None, 10]}) == ["low", "mid", "none", "none"]


def test_in_is_three_valued(bench):
    x = f("x", I)
    assert bench.values(In(x, (lit(1, I), lit(3, I))), {"x": [1, 2, None]}) == [True, False, None]
    assert bench.values(In(x, (lit(1, I), lit(None, I))), {"x": [1, 2]}) == [True, None]
    assert bench.values(In(f("d", D), (lit(NAN, D),)), {"d": [NAN, 1.0]}) == [True, False]


def test_between_is_inclusive(bench):
    expr = Between(f("x", I), lit(2, I), lit(5, I))
    assert bench.values(expr, {"x": [1, 2, 5, 10, None]}) == [False, True, True, False, None]


@pytest.mark.parametrize(
    "value, dtype",
    [
        ('it\'s "quoted" \\ ünïcode', STRING),
        (None, STRING),
        (None, NULL),
        (True, BOOLEAN),
        (9223372036854775807, INTEGER),
        (-0.5, DOUBLE),
        (1e20, DOUBLE),
        (math.inf, DOUBLE),
        (-math.inf, DOUBLE),
        ("2020-01-02", DATE),
        ("2020-01-02 03:04:05", TIMESTAMP),
    ],
)
def test_literals_round_trip(bench, value, dtype):
    assert bench.values(lit(value, dtype)) == [value]


def test_nan_literal(bench):
    assert same(bench.values(lit(NAN, DOUBLE)), [NAN], tolerance=0)


def test_decimal_literal(bench):
    assert bench.values(lit("12.50", decimal(5, 2))) == [12.5]
