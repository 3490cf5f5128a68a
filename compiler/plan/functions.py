"""The closed catalogue of functions a plan may call; each engine maps every entry once."""

from __future__ import annotations

from enum import Enum


class Fn(str, Enum):
    """Scalar functions and operators."""

    # arithmetic: DIVIDE is true division and yields NULL on a zero divisor on every engine
    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    DIVIDE = "divide"
    MODULO = "modulo"
    NEGATE = "negate"
    # comparison
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"
    EQ_NULL_SAFE = "eq_null_safe"
    # logic
    AND = "and"
    OR = "or"
    NOT = "not"
    # nulls and NaN
    COALESCE = "coalesce"
    IS_NAN = "is_nan"
    # strings
    UPPER = "upper"
    LOWER = "lower"
    TRIM = "trim"
    LTRIM = "ltrim"
    RTRIM = "rtrim"
    LENGTH = "length"
    SUBSTRING = "substring"  # 1-based start, optional length
    CONCAT = "concat"
    REPLACE = "replace"
    CONCAT_WS = "concat_ws"  # (separator, text...): NULL parts skipped; a NULL separator gives NULL
    LPAD = "lpad"  # (text, length, pad): cut to length, or padded on the left; empty pad: only cut
    RPAD = "rpad"  # as LPAD, padded on the right
    STRPOS = "strpos"  # (text, part): 1-based character position of the first match, 0 if none
    REPEAT = "repeat"  # (text, times): a negative count gives ''
    REVERSE = "reverse"  # code points in reverse order (a combining mark follows its letter's reversal)
    STARTS_WITH = "starts_with"
    ENDS_WITH = "ends_with"
    CONTAINS = "contains"
    # regular expressions: patterns in the syntax Java and RE2 share (see the README)
    REGEXP_EXTRACT = "regexp_extract"  # (text, pattern literal, group literal): '' when nothing matches
    REGEXP_REPLACE = "regexp_replace"  # (text, pattern, replacement literal in Java's $n syntax): every match
    SPLIT = "split"  # (text, pattern): array<string> of the parts between matches, trailing '' kept
    # numbers
    ABS = "abs"
    ROUND = "round"  # half away from zero
    FLOOR = "floor"
    CEIL = "ceil"
    SQRT = "sqrt"
    POWER = "power"
    LEAST = "least"
    GREATEST = "greatest"
    LN = "ln"  # natural logarithm; NULL for zero and negative numbers (NaN stays NaN)
    LOG10 = "log10"  # as LN, base 10
    LOG2 = "log2"  # as LN, base 2
    EXP = "exp"
    SIGN = "sign"  # -1.0, 0.0 or 1.0 as a double; NaN and -0.0 are kept
    # time
    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    HOUR = "hour"
    MINUTE = "minute"
    SECOND = "second"
    TO_DATE = "to_date"
    EPOCH_MILLIS = "epoch_millis"  # timestamp -> integer milliseconds since 1970-01-01 UTC
    EPOCH_SECONDS = "epoch_seconds"  # timestamp -> whole seconds since 1970-01-01 UTC, rounded down
    TIMESTAMP_SECONDS = "timestamp_seconds"  # integer seconds since 1970-01-01 UTC -> timestamp
    DAY_OF_WEEK = "day_of_week"  # 1 for Sunday to 7 for Saturday
    DAY_OF_YEAR = "day_of_year"
    WEEK_OF_YEAR = "week_of_year"  # ISO 8601 week: weeks start on Monday, week 1 holds a Thursday
    QUARTER = "quarter"
    LAST_DAY = "last_day"  # date -> the last day of its month
    DATE_ADD = "date_add"  # (date, integer days) -> date
    DATE_DIFF = "date_diff"  # (end date, start date) -> days from start to end
    ADD_MONTHS = "add_months"  # (date, integer months) -> date; a day past the month's end becomes its last day
    # (timestamp, pattern literal): Spark's datetime pattern, restricted to datetime_patterns.SUPPORTED
    DATE_FORMAT = "date_format"
    # nested data
    ELEMENT_AT = "element_at"  # array element by 0-based index (negative: from the end), map value by key
    GET_FIELD = "get_field"  # struct field by a literal name
    # arrays: the second argument of ARRAY_MAP / ARRAY_FILTER is a Lambda
    ARRAY_MAP = "array_map"  # the lambda applied to each element
    ARRAY_FILTER = "array_filter"  # the elements for which the lambda is true, in order
    FLATTEN = "flatten"  # an array of arrays concatenated (no NULL inner arrays)
    SLICE = "slice"  # elements from..to, 0-based and inclusive; negative bounds count from the end
    SIZE = "size"  # elements of an array, entries of a map
    # an array's distinct elements in the order they first come; NULLs are one element (kept once),
    # NaN equals NaN (Spark's array_distinct)
    ARRAY_DISTINCT = "array_distinct"
    # (array, value): true if present; else NULL if the array holds a NULL; NaN is found
    ARRAY_CONTAINS = "array_contains"
    MAKE_ARRAY = "make_array"  # an array of its arguments, in order (a quarantined row's errors)
    MAKE_STRUCT = "make_struct"  # (name literal, value, ...): a struct of named fields
    MAP_KEYS = "map_keys"  # in the map's order
    MAP_VALUES = "map_values"  # in the map's order
    # JSON values held as text: a string is its content, other values their compact JSON text,
    # JSON null is NULL; text that does not parse as JSON yields NULL
    JSON_PARSE = "json_parse"  # the value of a JSON document
    JSON_FIELD = "json_field"  # an object's member by a literal name; NULL if not an object
    JSON_ITEMS = "json_items"  # an array's elements as array<json>; NULL if not an array


class AggFn(str, Enum):
    """Aggregate functions."""

    COUNT = "count"  # non-NULL values of the argument
    COUNT_ALL = "count_all"  # rows: count(*)
    SUM = "sum"
    AVG = "avg"
    MIN = "min"
    MAX = "max"
    STDDEV_SAMP = "stddev_samp"
    STDDEV_POP = "stddev_pop"
    VAR_SAMP = "var_samp"
    VAR_POP = "var_pop"
    # (value, fraction literal p): the smallest value v such that at least p of the non-NULL
    # values are <= v, with p taken as the exact decimal it is written as
    PERCENTILE_DISC = "percentile_disc"
    # some non-NULL value of the rows (NULL if none); which one, when they differ, is not
    # defined and may differ between engines
    ANY_VALUE = "any_value"


class WindowFn(str, Enum):
    """Window functions (the plan's row-numbering step)."""

    ROW_NUMBER = "row_number"
    COUNT_ALL = "count_all"


class JoinKind(str, Enum):
    """Join kinds; ANTI keeps the left rows with no match, SEMI those with one."""

    INNER = "inner"
    LEFT = "left"
    ANTI = "anti"
    SEMI = "semi"
    CROSS = "cross"


# (fewest, most) arguments of each function; None: no upper bound
_ONE, _TWO, _THREE = (1, 1), (2, 2), (3, 3)
ARITY: dict[Fn, tuple[int, int | None]] = {
    **dict.fromkeys(
        (
            Fn.ADD,
            Fn.SUBTRACT,
            Fn.MULTIPLY,
            Fn.DIVIDE,
            Fn.MODULO,
            Fn.EQ,
            Fn.NE,
            Fn.LT,
            Fn.LE,
            Fn.GT,
            Fn.GE,
            Fn.EQ_NULL_SAFE,
            Fn.AND,
            Fn.OR,
            Fn.STRPOS,
            Fn.REPEAT,
            Fn.STARTS_WITH,
            Fn.ENDS_WITH,
            Fn.CONTAINS,
            Fn.SPLIT,
            Fn.POWER,
            Fn.DATE_ADD,
            Fn.DATE_DIFF,
            Fn.ADD_MONTHS,
            Fn.DATE_FORMAT,
            Fn.ELEMENT_AT,
            Fn.GET_FIELD,
            Fn.ARRAY_MAP,
            Fn.ARRAY_FILTER,
            Fn.ARRAY_CONTAINS,
            Fn.JSON_FIELD,
        ),
        _TWO,
    ),
    **dict.fromkeys((Fn.LPAD, Fn.RPAD, Fn.REGEXP_EXTRACT, Fn.REGEXP_REPLACE, Fn.SLICE), _THREE),
    **dict.fromkeys((Fn.COALESCE, Fn.CONCAT, Fn.LEAST, Fn.GREATEST), (1, None)),
    Fn.CONCAT_WS: (2, None),
    Fn.MAKE_ARRAY: (1, None),
    Fn.MAKE_STRUCT: (2, None),
    Fn.SUBSTRING: (2, 3),
    Fn.REPLACE: (2, 3),
    Fn.ROUND: (1, 2),
}
"""Functions not listed take exactly one argument."""

LOGIC = frozenset({Fn.AND, Fn.OR, Fn.NOT})
HIGHER_ORDER = frozenset({Fn.ARRAY_MAP, Fn.ARRAY_FILTER})
