"""Griffin's #pattern# placeholders are written with the one table of pattern letters."""

from gryph.compiler.griffin.time_patterns import fill_time_patterns

# 2023-11-14 22:13:20.123 UTC, a Tuesday, day 318 of the year
AT = 1_700_000_000_123


def test_every_supported_field_fills_a_placeholder():
    assert fill_time_patterns("dt = '#yyyyMMdd#' AND hour = '#HH#'", AT) == "dt = '20231114' AND hour = '22'"
    assert fill_time_patterns("#yyyy-MM-dd'T'HH:mm:ss.SSS#", AT) == "2023-11-14T22:13:20.123"
    assert fill_time_patterns("#EEE_MMM_hh_a_DDD#", AT) == "Tue_Nov_10_PM_318"
    assert fill_time_patterns("#EEEE/MMMM/d/M/yy#", AT) == "Tuesday/November/14/11/23"


def test_a_placeholder_that_is_no_supported_pattern_is_left_as_written():
    assert fill_time_patterns("a = '#YYYY#' OR b = '#yyy#' OR c = '#HH[mm]#'", AT) == (
        "a = '#YYYY#' OR b = '#yyy#' OR c = '#HH[mm]#'"
    )
