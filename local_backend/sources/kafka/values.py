"""Kafka message values parsed in DuckDB, as Spark's ``from_json`` / ``from_csv`` parse them
(PERMISSIVE, with a corrupt-record column), so both engines give the same rows.

A message is malformed (``__malformed``, its value columns NULL) when it has no value, when a
json value is not one JSON object, when a csv value has another number of fields than the schema,
or when a field present and not null does not convert to its column's type:

- json: an integer column takes JSON integers in 64 bits; a double column JSON numbers and the
  strings NaN, Infinity, +Infinity, +INF, -Infinity, -INF; a boolean column true and false; a
  timestamp column a string (ISO 8601; a zone-less time is UTC) or integer seconds since 1970; a
  date column a string; a string column anything (an object or array as its compact JSON).
- csv (fields separated by ``,``, quoted with ``"``, ``\\`` escaping a quote): an empty field
  is NULL; integers are digits with an optional sign; doubles decimal or scientific numbers
  (spaces around allowed) and NaN, Inf, -Inf, Infinity, +Infinity, -Infinity; booleans true or
  false in any case; timestamps and dates as for json.

A text value is one string column ``value``, never malformed.
"""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING

from gryph.compiler.errors import InvalidInput, Location
from gryph.compiler.plan.data_types import Column, Kind
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import MALFORMED, value_format, value_schema

from ...sql.quoting import ident, string
from .arrow_json import MEMBER

if TYPE_CHECKING:
    import pyarrow as pa

RAW_VALUE = "__value"  # the message's value as text, before parsing
_FIELDS = "__fields"  # a csv value split into its fields
_BROKER = 'key, topic, "partition", "offset", "timestamp"'
_DOUBLE_WORDS = {
    "json": {"NaN": "nan", "Infinity": "inf", "+Infinity": "inf", "+INF": "inf", "-Infinity": "-inf", "-INF": "-inf"},
    "csv": {"NaN": "nan", "Inf": "inf", "Infinity": "inf", "+Infinity": "inf", "-Inf": "-inf", "-Infinity": "-inf"},
}
_INTEGER_TEXT = string("[+-]?[0-9]+")
_DOUBLE_TEXT = string(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*")
_JSON_BLANKS = string(" \t\n\r")  # the characters JSON allows around a value
_PARSED_KINDS = (Kind.STRING, Kind.INTEGER, Kind.DOUBLE, Kind.BOOLEAN, Kind.TIMESTAMP, Kind.DATE)


def with_csv_fields(spec: SourceSpec, raw: pa.Table) -> pa.Table:
    """``raw`` with each csv value split into its fields (NULL for a value that is no csv line)."""
    import pyarrow as pa

    if value_format(spec) != "csv":
        return raw
    fields = [None if value is None else _csv_line(value) for value in raw.column(RAW_VALUE).to_pylist()]
    return raw.append_column(_FIELDS, pa.array(fields, pa.list_(pa.string())))


def _csv_line(value: str) -> list[str] | None:
    try:
        return next(csv.reader([value], delimiter=",", quotechar='"', escapechar="\\", strict=False), [])
    except csv.Error:  # a line break outside quotes: not one csv line
        return None


def parsed_messages(spec: SourceSpec, raw: str, *, members_read: bool = False) -> str:
    """A relation over ``raw`` (the raw messages) with the columns ``stream_schema`` lists,
    ``__tmst`` aside (the source's view adds it). With ``members_read``, ``raw`` holds each
    json value's members already read (arrow_json.arrow_parsed) instead of the value."""
    shape = value_format(spec)  # text, json or csv: what a message's value holds
    if shape == "text":
        return f"(SELECT {ident(RAW_VALUE)} AS value, {_BROKER}, false AS {ident(MALFORMED)} FROM {raw})"
    columns = value_schema(spec).columns
    for column in columns:
        if column.dtype.kind not in _PARSED_KINDS:
            raise InvalidInput(
                "BAD_SOURCE",
                f"source {spec.name!r}: a kafka {shape} value's column {column.name!r} cannot be {column.dtype}",
                location=spec.location or Location(),
                text=column.name,
                hint="declare it a string, bigint, double, boolean, timestamp or date",
            )
    if members_read:  # each member already has its column's JSON type: times and dates remain
        shaped = raw
        typed = [_read_member(column, ident(MEMBER.format(i))) for i, column in enumerate(columns)]
        whole = "false"
    elif shape == "json":
        # the value is parsed once, into each column's JSON (NULL: absent); each small piece then
        # once more, for its JSON type and its text, which the conversions below only read
        pieces = ", ".join(
            f"json_type(__j[{i + 1}]) AS __t{i}, json_extract_string(__j[{i + 1}], '$') AS __s{i}"
            for i in range(len(columns))
        )
        shaped = f"(SELECT *, {pieces} FROM (SELECT *, {_json_pieces(columns)} AS __j FROM {raw}))"
        typed = [_json_field(column, f"__t{i}", f"__s{i}") for i, column in enumerate(columns)]
        whole = "__j IS NULL"
    else:
        shaped = raw
        typed = [_csv_field(column, i) for i, column in enumerate(columns)]
        whole = f"{_FIELDS} IS NULL OR len({_FIELDS}) <> {len(columns)}"
    values = ", ".join(f"{value} AS __c{i}" for i, (value, _) in enumerate(typed))
    # a field present (not absent, not null) whose converted value is NULL did not convert
    bad = " OR ".join(
        [whole, *(f"coalesce({present} AND __c{i} IS NULL, false)" for i, (_, present) in enumerate(typed))]
    )
    outer = ", ".join(f"CASE WHEN NOT __m THEN __c{i} END AS {ident(c.name)}" for i, c in enumerate(columns))
    return (
        f"(SELECT {outer}, {_BROKER}, __m AS {ident(MALFORMED)} FROM "
        f"(SELECT *, ({bad}) AS __m FROM (SELECT *, {values} FROM {shaped})))"
    )


def _json_pieces(columns: tuple[Column, ...]) -> str:
    """Per column, its member of the value's object as JSON (NULL where absent); NULL for a
    value that is not one JSON object."""
    value = ident(RAW_VALUE)
    pointers = ", ".join(string("/" + c.name.replace("~", "~0").replace("/", "~1")) for c in columns)
    # a valid JSON text is an object when its first character past JSON's blanks is '{': the same
    # answer as json_type(...) = 'OBJECT' without parsing the value once more (a fifth of the time)
    is_object = f"starts_with(ltrim({value}, {_JSON_BLANKS}), '{{')"
    return f"CASE WHEN json_valid({value}) AND {is_object} THEN json_extract({value}, [{pointers}]) END"


def _json_field(column: Column, kind: str, text: str) -> tuple[str, str]:
    """The column's value from its member's JSON type and text, and when the member holds a
    value to convert."""
    integral = f"{kind} IN ('BIGINT', 'UBIGINT')"
    if column.dtype.kind == Kind.STRING:
        return text, "false"
    if column.dtype.kind == Kind.INTEGER:
        value = f"CASE WHEN {integral} THEN TRY_CAST({text} AS BIGINT) END"
    elif column.dtype.kind == Kind.DOUBLE:
        value = (
            f"CASE WHEN {integral} OR {kind} = 'DOUBLE' THEN CAST({text} AS DOUBLE) "
            f"WHEN {kind} = 'VARCHAR' THEN {_double_word(text, 'json')} END"
        )
    elif column.dtype.kind == Kind.BOOLEAN:
        value = f"CASE WHEN {kind} = 'BOOLEAN' THEN {text} = 'true' END"
    elif column.dtype.kind == Kind.TIMESTAMP:
        seconds = f"TRY_CAST({text} AS BIGINT)"
        value = (
            f"CASE WHEN {kind} = 'VARCHAR' THEN {_timestamp(text)} "
            f"WHEN {integral} AND abs({seconds}) < 100000000000 THEN CAST(to_timestamp({seconds}) AS TIMESTAMP) END"
        )
    else:
        value = f"CASE WHEN {kind} = 'VARCHAR' THEN TRY_CAST({text} AS DATE) END"
    return value, f"{kind} <> 'NULL'"


def _read_member(column: Column, member: str) -> tuple[str, str]:
    """The column's value from its member read by Arrow (a time or a date as its text)."""
    if column.dtype.kind == Kind.TIMESTAMP:
        return _timestamp(member), f"{member} IS NOT NULL"
    if column.dtype.kind == Kind.DATE:
        return f"TRY_CAST({member} AS DATE)", f"{member} IS NOT NULL"
    return member, "false"


def _csv_field(column: Column, index: int) -> tuple[str, str]:
    text = f"NULLIF({_FIELDS}[{index + 1}], '')"
    if column.dtype.kind == Kind.STRING:
        return text, "false"
    if column.dtype.kind == Kind.INTEGER:
        value = f"CASE WHEN regexp_full_match({text}, {_INTEGER_TEXT}) THEN TRY_CAST({text} AS BIGINT) END"
    elif column.dtype.kind == Kind.DOUBLE:
        value = (
            f"CASE WHEN regexp_full_match({text}, {_DOUBLE_TEXT}) THEN TRY_CAST(trim({text}) AS DOUBLE) "
            f"ELSE {_double_word(text, 'csv')} END"
        )
    elif column.dtype.kind == Kind.BOOLEAN:
        value = f"CASE lower({text}) WHEN 'true' THEN true WHEN 'false' THEN false END"
    elif column.dtype.kind == Kind.TIMESTAMP:
        value = _timestamp(text)
    else:
        value = f"TRY_CAST({text} AS DATE)"
    return value, f"{text} IS NOT NULL"


def _double_word(text: str, kind: str) -> str:
    cases = " ".join(f"WHEN {string(word)} THEN CAST({string(v)} AS DOUBLE)" for word, v in _DOUBLE_WORDS[kind].items())
    return f"CASE {text} {cases} END"


def _timestamp(text: str) -> str:
    # through TIMESTAMPTZ: an offset in the text counts; the session's zone (UTC) is the default
    return f"TRY_CAST(TRY_CAST({text} AS TIMESTAMPTZ) AS TIMESTAMP)"
