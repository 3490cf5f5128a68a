"""Qualified table names, ``db.schema.table``, split into their parts."""

from __future__ import annotations

from ..errors import InvalidInput


def split_qualified(name: str) -> list[str]:
    """Split ``db.schema.table`` into its parts; a part may be double-quoted to hold dots."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(name):
        char = name[i]
        if quoted:
            if char == '"' and name[i + 1 : i + 2] == '"':
                current.append('"')
                i += 1
            elif char == '"':
                quoted = False
            else:
                current.append(char)
        elif char == '"':
            quoted = True
        elif char == ".":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    parts.append("".join(current))
    if quoted or not 1 <= len(parts) <= 3 or not all(p.strip() for p in parts):
        raise InvalidInput("BAD_TABLE_NAME", f"{name!r} is not a table name of the form [db.][schema.]table")
    return parts
