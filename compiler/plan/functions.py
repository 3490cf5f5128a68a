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
    # numbers
    ABS = "abs"
    ROUND = "round"  # half away from zero
    FLOOR = "floor"
    CEIL = "ceil"
    SQRT = "sqrt"
    POWER = "power"
    LEAST = "least"
    GREATEST = "greatest"
    # time
    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    HOUR = "hour"
    MINUTE = "minute"
    SECOND = "second"
    TO_DATE = "to_date"
    EPOCH_MILLIS = "epoch_millis"  # timestamp -> integer milliseconds since 1970-01-01 UTC
    # nested data
    ELEMENT_AT = "element_at"  # array element by 0-based index (negative: from the end), map value by key
    GET_FIELD = "get_field"  # struct field by a literal name
    # arrays: the second argument of ARRAY_MAP / ARRAY_FILTER is a Lambda
    ARRAY_MAP = "array_map"  # the lambda applied to each element
    ARRAY_FILTER = "array_filter"  # the elements for which the lambda is true, in order
    FLATTEN = "flatten"  # an array of arrays concatenated (no NULL inner arrays)
    SLICE = "slice"  # elements from..to, 0-based and inclusive; negative bounds count from the end
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
