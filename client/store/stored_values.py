"""Values read back from gryph's own DuckDB files (a stream's state, a run history), checked.

Such a file is input: a valid database whose rows were edited, cut or written by another
version may hold NULLs, other types or JSON of another shape. Each reader checks what it takes
here and turns ``Damaged`` into its file's error (STREAM_STATE, HISTORY_UNREADABLE) naming the
file and the value, never a traceback further on.
"""

from __future__ import annotations

import json
import math


class Damaged(ValueError):
    """A stored value that is not what gryph wrote; the message says which and why."""


def integer(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Damaged(f"{what} is {_shown(value)}, not an integer")
    return value


def text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise Damaged(f"{what} is {_shown(value)}, not a text")
    return value


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
        raise Damaged(f"{what} is {_shown(document)}, not a JSON object")
    return document


def field(document: dict, key: str, kind: type | tuple[type, ...], what: str) -> object:
    """``document[key]``, which must be there and of ``kind`` (a bool is no number here)."""
    if key not in document:
        raise Damaged(f"{what} has no {key!r}")
    value = document[key]
    numeric = kind in (int, float) or (isinstance(kind, tuple) and int in kind)
    if not isinstance(value, kind) or (numeric and isinstance(value, bool)):
        raise Damaged(f"{what}'s {key!r} is {_shown(value)}, not {_kind_name(kind)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise Damaged(f"{what}'s {key!r} is {value}, not a finite number")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a text", int: "an integer", float: "a number", bool: "a boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _shown(value: object) -> str:
    """A value as an error names it: its type, and the value itself when short."""
    if value is None:
        return "NULL"
    shown = repr(value)
    return f"{type(value).__name__} {shown}" if len(shown) <= 40 else f"a {type(value).__name__}"


# the parts of a run's result document that stored runs are read back by (RunResult.to_dict)
_DOCUMENT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "engine": str,
    "started": str,
    "duration_seconds": (int, float),
    "metrics": dict,
    "records": dict,
    "measure": dict,
    "pass": bool,
    "policy": str,
}


def result_document(value: object, what: str) -> dict:
    """A run's result document stored as JSON text: an object with the parts gryph reads back."""
    document = json_object(value, what)
    for key, kind in _DOCUMENT_FIELDS.items():
        field(document, key, kind, what)
    for key in ("stream", "rules", "check"):
        if document.get(key) is not None:
            field(document, key, dict, what)
    if document.get("check_details") is not None:
        field(document, "check_details", list, what)
    for number, check in enumerate(document.get("check_details") or []):
        where = f"{what}'s check {number + 1}"
        if not isinstance(check, dict):
            raise Damaged(f"{where} is {_shown(check)}, not an object")
        for key in ("name", "expression", "status"):
            field(check, key, str, where)
        for key, kind in (("values", dict), ("reads", list), ("bounds", list), ("watches", dict)):
            if check.get(key) is not None:
                field(check, key, kind, where)
    return document
