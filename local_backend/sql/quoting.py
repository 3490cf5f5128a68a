"""Quoting of identifiers and string literals: the only way user text enters generated SQL."""

from __future__ import annotations


def ident(name: str) -> str:
    """A double-quoted identifier, with embedded quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def string(value: str) -> str:
    """A single-quoted string literal, with embedded quotes doubled."""
    return "'" + value.replace("'", "''") + "'"
