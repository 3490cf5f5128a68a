"""Casts between text and numbers or times, read and written as Spark reads and writes them.

Spark (Griffin's engine) is the reference. Left to itself DuckDB reads '1.5' and '1e3' as
integers, '1_000' as a number and 'epoch' or 'infinity' as times, and writes doubles in its own
notation ('1e-07' where Spark writes '1.0E-7'). Each function takes the SQL of a text (or double)
value and gives DuckDB SQL with Spark's result; the value's SQL may appear more than once.
"""

from __future__ import annotations

from .quoting import string

_INTEGER_TEXT = string(r"\s*[+-]?[0-9]+\s*")
# Java's trim: every character up to U+0020
_JAVA_TRIM = string(r"^[\x00-\x20]+|[\x00-\x20]+$")
# Java's decimal notation, with its optional float/double suffix (hex floats are not read)
_DECIMAL_TEXT = string(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[dDfF]?")
_TIME_TEXT = string(r"^\s*[0-9]")


def integer_from_text(sql: str) -> str:
    """Integer text only: no fraction, exponent or digit separators (Spark's try_cast)."""
    return f"(CASE WHEN regexp_full_match({sql}, {_INTEGER_TEXT}) THEN TRY_CAST({sql} AS BIGINT) END)"


def double_from_text(sql: str) -> str:
    """Java's number text, 'NaN' and '[+-]Infinity', and Spark's 'inf'/'infinity'/'nan' in any case."""
    text = f"regexp_replace({sql}, {_JAVA_TRIM}, '', 'g')"
    lower = f"lower({text})"
    return (f"(CASE WHEN regexp_full_match({text}, {_DECIMAL_TEXT}) THEN TRY_CAST(rtrim({text}, 'dDfF') AS DOUBLE)"
            f" WHEN {text} IN ('NaN', '+NaN', '-NaN') OR {lower} = 'nan' THEN CAST('NaN' AS DOUBLE)"
            f" WHEN {text} IN ('Infinity', '+Infinity') OR {lower} IN ('inf', '+inf', 'infinity', '+infinity')"
            f" THEN CAST('Infinity' AS DOUBLE)"
            f" WHEN {text} = '-Infinity' OR {lower} IN ('-inf', '-infinity') THEN CAST('-Infinity' AS DOUBLE) END)")


def time_from_text(sql: str, duck_type: str) -> str:
    """A DATE or TIMESTAMP from text starting with a digit: no 'epoch', 'infinity' or 'now'."""
    value = f"TRY_CAST({sql} AS {duck_type})"
    return f"(CASE WHEN regexp_matches({sql}, {_TIME_TEXT}) AND isfinite({value}) THEN {value} END)"


def double_text(sql: str) -> str:
    """Java's Double.toString: plain from 1e-3 up to 1e7, else one digit, fraction and 'E'.

    The digits are DuckDB's shortest round-trip digits, as Java (19 on) writes them; Java 17
    writes a longer expansion for a few doubles of 1e16 and more.
    """
    magnitude = f"abs({sql})"
    shortest = f"CAST({magnitude} AS VARCHAR)"  # '123.5', '1e-07', '1.5e+21', '10000000000.0'
    mantissa = f"split_part({shortest}, 'e', 1)"
    exponent = f"coalesce(TRY_CAST(split_part({shortest}, 'e', 2) AS INTEGER), 0)"
    all_digits = f"replace({mantissa}, '.', '')"
    fraction_length = f"length(split_part({mantissa}, '.', 2))"
    significant = f"ltrim({all_digits}, '0')"
    digits = f"rtrim({significant}, '0')"
    # the power of ten of the first significant digit
    power = f"({exponent} - {fraction_length} + length({significant}) - 1)"
    scientific = (f"left({digits}, 1) || '.' || coalesce(nullif(substr({digits}, 2), ''), '0')"
                  f" || 'E' || CAST({power} AS VARCHAR)")
    return (f"(CASE WHEN isnan({sql}) THEN 'NaN'"
            f" WHEN isinf({sql}) THEN CASE WHEN {sql} > 0 THEN 'Infinity' ELSE '-Infinity' END"
            f" WHEN {sql} = 0 OR ({magnitude} >= 0.001 AND {magnitude} < 10000000) THEN CAST({sql} AS VARCHAR)"
            f" ELSE CASE WHEN {sql} < 0 THEN '-' ELSE '' END || {scientific} END)")
