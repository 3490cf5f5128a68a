"""Values read back from a file gryph wrote (a result document, a stream's state, a run history),
checked: ``Damaged`` names the one that is not what gryph wrote, and why."""

from __future__ import annotations

import math

from gryph.compiler.errors import with_article


class Damaged(ValueError):
    """A stored value that is not what gryph wrote; the message says which and why."""


def integer(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Damaged(f"{what} is {shown(value)}, not an integer")
    return value


def text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise Damaged(f"{what} is {shown(value)}, not a text")
    return value


def optional(document: dict, key: str, kind: type | tuple[type, ...], what: str, default: object = None) -> object:
    """``document[key]`` when there and not null (then of ``kind``), else ``default``."""
    return default if document.get(key) is None else field(document, key, kind, what)


def field(document: dict, key: str, kind: type | tuple[type, ...], what: str) -> object:
    """``document[key]``, which must be there and of ``kind`` (a bool is no number here)."""
    if key not in document:
        raise Damaged(f"{what} has no {key!r}")
    value = document[key]
    numeric = kind in (int, float) or (isinstance(kind, tuple) and int in kind)
    if not isinstance(value, kind) or (numeric and isinstance(value, bool)):
        raise Damaged(f"{what}'s {key!r} is {shown(value)}, not {_kind_name(kind)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise Damaged(f"{what}'s {key!r} is {value}, not a finite number")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a text", int: "an integer", float: "a number", bool: "a boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def shown(value: object) -> str:
    """A value as an error names it: its type, and the value itself when short."""
    if value is None:
        return "NULL"
    text = repr(value)
    return f"{type(value).__name__} {text}" if len(text) <= 40 else with_article(type(value).__name__)
