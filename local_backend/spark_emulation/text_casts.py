"""Casts between text and numbers or times, read and written as Spark reads and writes them.

Spark (Griffin's engine) is the reference. Left to itself DuckDB reads '1.5' and '1e3' as
integers, '1_000' as a number and 'epoch' or 'infinity' as times, and writes doubles in its own
notation ('1e-07' where Spark writes '1.0E-7'). Each function takes the SQL of a text (or double)
value and gives DuckDB SQL with Spark's result; the value's SQL may appear more than once.
"""

from __future__ import annotations

from ..sql.quoting import string

_INTEGER_TEXT = string(r"\s*[+-]?[0-9]+\s*")
# Java's trim: every character up to U+0020
_JAVA_TRIM = string(r"^[\x00-\x20]+|[\x00-\x20]+$")
# Java's decimal notation, with its optional float/double suffix (hex floats are not read)
_DECIMAL_TEXT = string(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[dDfF]?")
# Spark's time text: a year, then optionally month, day, [h]h:[m]m[:[s]s[.fraction]] and a zone
# offset; a date ignores whatever follows the day after a space or 'T'. The groups, in order:
_TIMESTAMP_TEXT = (
    r"^\s*([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2})(?:[ T]([0-9]{1,2}):([0-9]{1,2})"
    r"(?::([0-9]{1,2})(\.[0-9]*)?)?\s*(Z|UTC|GMT|[+-][0-9]{1,2}(?::?[0-9]{2})?)?)?)?)?\s*$"
)
_TIMESTAMP_PARTS = ("y", "m", "d", "hh", "mi", "ss", "frac", "zone")
_DATE_TEXT = r"^\s*([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2})(?:[ T].*)?)?)?\s*$"
_DATE_PARTS = ("y", "m", "d")


def integer_from_text(sql: str) -> str:
    """Integer text only: no fraction, exponent or digit separators (Spark's try_cast)."""
    return f"(CASE WHEN regexp_full_match({sql}, {_INTEGER_TEXT}) THEN TRY_CAST({sql} AS BIGINT) END)"


def double_from_text(sql: str) -> str:
    """Java's number text, 'NaN' and '[+-]Infinity', and Spark's 'inf'/'infinity'/'nan' in any case."""
    text = f"regexp_replace({sql}, {_JAVA_TRIM}, '', 'g')"
    lower = f"lower({text})"
    return (
        f"(CASE WHEN regexp_full_match({text}, {_DECIMAL_TEXT}) THEN TRY_CAST(rtrim({text}, 'dDfF') AS DOUBLE)"
        f" WHEN {text} IN ('NaN', '+NaN', '-NaN') OR {lower} = 'nan' THEN CAST('NaN' AS DOUBLE)"
        f" WHEN {text} IN ('Infinity', '+Infinity') OR {lower} IN ('inf', '+inf', 'infinity', '+infinity')"
        f" THEN CAST('Infinity' AS DOUBLE)"
        f" WHEN {text} = '-Infinity' OR {lower} IN ('-inf', '-infinity') THEN CAST('-Infinity' AS DOUBLE) END)"
    )


def _parts(sql: str, pattern: str, names: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Whether ``sql`` matches ``pattern``, and the SQL of each group ('' where the text has none)."""
    quoted = string(pattern)
    groups = f"regexp_extract({sql}, {quoted}, [{', '.join(string(n) for n in names)}])"
    return f"regexp_full_match({sql}, {quoted}, 's')", {n: f"struct_extract({groups}, {string(n)})" for n in names}


def _or(part: str, default: str) -> str:
    return f"coalesce(nullif({part}, ''), {string(default)})"


def boolean_from_text(sql: str) -> str:
    """'true'/'t'/'yes'/'y'/'1' and their false forms, in any case, around spaces (as Spark)."""
    return f"TRY_CAST(regexp_replace({sql}, {_JAVA_TRIM}, '', 'g') AS BOOLEAN)"


def date_from_text(sql: str) -> str:
    """Spark's date text: 'yyyy', 'yyyy-[m]m', 'yyyy-[m]m-[d]d', then anything after ' ' or 'T'."""
    matches, p = _parts(sql, _DATE_TEXT, _DATE_PARTS)
    text = f"{p['y']} || '-' || {_or(p['m'], '1')} || '-' || {_or(p['d'], '1')}"
    return f"(CASE WHEN {matches} THEN TRY_CAST({text} AS DATE) END)"


def timestamp_from_text(sql: str) -> str:
    """Spark's timestamp text, read in UTC unless it names an offset ('Z', '+02:00', '-0530')."""
    matches, p = _parts(sql, _TIMESTAMP_TEXT, _TIMESTAMP_PARTS)
    text = (
        f"{p['y']} || '-' || {_or(p['m'], '1')} || '-' || {_or(p['d'], '1')} || ' ' || {_or(p['hh'], '0')}"
        f" || ':' || {_or(p['mi'], '0')} || ':' || {_or(p['ss'], '0')} || {p['frac']}"
    )
    zone = p["zone"]
    hours = f"coalesce(TRY_CAST(regexp_extract({zone}, '^[+-]([0-9]{{1,2}})', 1) AS INTEGER), 0)"
    minutes = f"coalesce(TRY_CAST(regexp_extract({zone}, '([0-9]{{2}})$', 1) AS INTEGER), 0)"
    # '+0530' and '+05:30': the minutes are the last two digits when the hours are followed by more
    minutes = f"(CASE WHEN regexp_full_match({zone}, '[+-][0-9]{{1,2}}') THEN 0 ELSE {minutes} END)"
    sign = f"(CASE WHEN starts_with({zone}, '-') THEN -1 ELSE 1 END)"
    offset = f"to_minutes({sign} * ({hours} * 60 + {minutes}))"
    return f"(CASE WHEN {matches} THEN TRY_CAST({text} AS TIMESTAMP) - {offset} END)"


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
    scientific = (
        f"left({digits}, 1) || '.' || coalesce(nullif(substr({digits}, 2), ''), '0') || 'E' || CAST({power} AS VARCHAR)"
    )
    return (
        f"(CASE WHEN isnan({sql}) THEN 'NaN'"
        f" WHEN isinf({sql}) THEN CASE WHEN {sql} > 0 THEN 'Infinity' ELSE '-Infinity' END"
        f" WHEN {sql} = 0 OR ({magnitude} >= 0.001 AND {magnitude} < 10000000) THEN CAST({sql} AS VARCHAR)"
        f" ELSE CASE WHEN {sql} < 0 THEN '-' ELSE '' END || {scientific} END)"
    )
