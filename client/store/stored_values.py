"""Values read back from gryph's own DuckDB files (a stream's state, a run history), checked.

Such a file is input: a valid database whose rows were edited, cut or written by another
version may hold NULLs, other types or JSON of another shape. Each reader checks what it takes
here and turns ``Damaged`` into its file's error (STREAM_STATE, HISTORY_UNREADABLE) naming the
file and the value, never a traceback further on.
"""

from __future__ import annotations

import json

from ..results.checked_values import Damaged, shown, text


def json_text(value: object, what: str) -> object:
    """The JSON document stored as the text ``value``."""
    stored = text(value, what)
    try:
        return json.loads(stored)
    except ValueError as error:
        raise Damaged(f"{what} is no JSON ({error})") from None


def json_object(value: object, what: str) -> dict:
    document = json_text(value, what)
    if not isinstance(document, dict):
        raise Damaged(f"{what} is {shown(document)}, not a JSON object")
    return document
