"""A property's ``logicalTypeOptions`` as the rows breaking each: bounds on numbers, lengths and
patterns of text, ``format``, date and timestamp bounds, and the items of an array.

NULL breaks no option. Docs: docs/contracts.md ("Mapping" and "Semantics").
"""

from __future__ import annotations

import re
from datetime import date, datetime

from .quality_rules import Unsupported, literal, pattern_condition

_NUMBER_BOUNDS = {"minimum": "{c} < {v}", "maximum": "{c} > {v}",
                  "exclusiveMinimum": "{c} <= {v}", "exclusiveMaximum": "{c} >= {v}",
                  "multipleOf": "{c} % {v} != 0",
                  "minLength": "length({c}) < {v}", "maxLength": "length({c}) > {v}",
                  "minItems": "size({c}) < {v}", "maxItems": "size({c}) > {v}"}  # fmt: skip
_TIME_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")

# the string formats checked, each a regex (searched, anchored by itself) and, for times, the cast
# that must read the text (so 2024-02-30 is no date); any other format is refused
_DAY = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
FORMATS: dict[str, tuple[str, str | None]] = {
    "email": (r"^[^@\s]+@[^@\s]+\.[^@\s]+$", None),
    "uuid": ("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", None),
    "date": (f"^{_DAY}$", "date"),
    "date-time": (
        f"^{_DAY}[T ][0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}(\\.[0-9]+)?(Z|[+-][0-9]{{2}}:[0-9]{{2}})$",
        "timestamp",
    ),
}


# the ISO texts a date or timestamp bound may be: what Python's reader and both engines' casts read alike
_ISO_BOUNDS = {
    "date": _DAY,
    "timestamp": f"{_DAY}([T ][0-9]{{2}}:[0-9]{{2}}(:[0-9]{{2}}(\\.[0-9]{{1,6}})?)?)?(Z|[+-][0-9]{{2}}:[0-9]{{2}})?",
}


def option_condition(key: str, value: object, column: str, logical_type: str | None) -> str | None:
    """The rows of ``column`` (quoted) breaking one option; None for options that state no row test."""
    if logical_type in ("date", "timestamp") and key in _TIME_BOUNDS:
        return _NUMBER_BOUNDS[key].format(c=column, v=_time_literal(value, logical_type))
    if key == "uniqueItems":
        # NULL elements are the same value, as JSON Schema compares null: [null, null] repeats one
        return f"size(array_distinct({column})) < size({column})" if value is True else None
    if key in _NUMBER_BOUNDS:
        if isinstance(value, bool):
            return None  # the JSON Schema draft-4 form, exclusiveMinimum: true, is not ODCS's
        if not isinstance(value, (int, float)):
            raise Unsupported(f"{key} takes a number (a date or timestamp only for those logical types)")
        return _NUMBER_BOUNDS[key].format(c=column, v=literal(value))
    if key == "pattern":
        return pattern_condition(column, value)
    if key == "format":
        return _format_condition(value, column)
    return None


def _time_literal(value: object, logical_type: str) -> str:
    """A date or timestamp bound as a cast of its ISO text, refused when Python's ISO reader cannot read it."""
    text = str(value)
    try:
        if not re.fullmatch(_ISO_BOUNDS[logical_type], text):
            raise ValueError(text)  # a form Python reads but a cast may not (20240131)
        date.fromisoformat(text) if logical_type == "date" else datetime.fromisoformat(text)
    except ValueError:
        raise Unsupported(
            f"{text!r} is no ISO {logical_type} (write {'2024-01-31' if logical_type == 'date' else '2024-01-31T12:00:00'})"
        ) from None
    return f"cast({literal(text)} as {logical_type})"


def _format_condition(value: object, column: str) -> str:
    known = FORMATS.get(str(value))
    if known is None:
        raise Unsupported(f"format {value!r} is not checked by gryph (it checks {', '.join(FORMATS)})")
    pattern, cast = known
    broken = f"({pattern_condition(column, pattern)})"
    if cast is None:
        return broken
    return f"{broken} or ({column} is not null and cast({column} as {cast}) is null)"
