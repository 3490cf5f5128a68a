"""Declared schemas: a source's columns as the user writes them, ``"id bigint, name string"`` in a
native suite, ``(name, type)`` pairs in a Griffin connector's ``schema``."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import InvalidInput, Location, did_you_mean
from ..language.textx_parser import unquote_name
from ..plan.data_types import TYPE_NAMES, Column, Schema, parse_type_name

# one column: a back-quoted name (`` doubles a back quote, so it may hold blanks and commas) or a
# plain one, then its type up to the next comma outside parentheses (decimal(10,2))
_COLUMN = re.compile(r"\s*(`(?:[^`]|``)*`|[^\s,`]+)\s+((?:[^,(]|\([^)]*\))+?)\s*(?:,|$)")


def parse_schema(text: str, location: Location | None = None) -> Schema:
    """A declared schema, ``"id bigint, name string, amount decimal(10,2), `unit price` double"``."""
    pairs = []
    at = 0
    while at < len(text):
        found = _COLUMN.match(text, at)
        if found is None or (found.group(0).endswith(",") and not text[found.end() :].strip()):
            part = text[at:].split(",", 1)[0].strip()
            raise InvalidInput(
                "BAD_SCHEMA",
                f"a schema column needs a name and a type: {part!r}",
                location=location,
                text=text,
                hint='write schema = "id bigint, name string" (a name with blanks or commas in back quotes: `unit price`)',
            )
        pairs.append((unquote_name(found.group(1)), found.group(2)))
        at = found.end()
    return parse_schema_columns(pairs, location)


def parse_schema_columns(pairs: Iterable[tuple[object, object]], location: Location | None = None) -> Schema:
    """A schema from ``(name, type name)`` pairs (native declarations, Griffin's ``schema``)."""
    columns = []
    for name, type_name in pairs:
        dtype = parse_type_name(str(type_name or ""))
        if not name or dtype is None:
            raise InvalidInput(
                "UNKNOWN_TYPE",
                f"unknown type {type_name!r} for column {name!r}",
                location=location,
                text=str(type_name),
                hint=did_you_mean(str(type_name), TYPE_NAMES),
            )
        columns.append(Column(str(name), dtype))
    try:
        return Schema(tuple(columns))
    except ValueError as error:
        raise InvalidInput("BAD_SCHEMA", str(error), location=location) from None
