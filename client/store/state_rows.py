"""A stream state's rows read back, every value checked (``Damaged`` names the one that is not
what gryph wrote): the state file is input, and a NULL, another type or JSON of another shape
must stop the stream as STREAM_STATE before anything acts on it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

from ..results.checked_values import Damaged, field, integer, text
from ..results.document import ResultDocument, read_document
from .stored_values import json_object

STATUSES = ("intent", "committed", "published")
LAST_TMST = 253_402_300_800_000  # epoch milliseconds of 10000-01-01: a batch's time is a date before it

# a batch input's parts: each maps a source (or rule) to what the batch reads of it
_RANGE = (str, int, int, int)  # a Kafka range: topic, partition, start, end (exclusive)
_FILE = (str, int, int)  # a file: path, modification time (ns), size


def batch_row(row: tuple) -> tuple[int, int, dict, str, ResultDocument | None]:
    """A ``batches`` row: its number, time, input parts (see ``input_parts``), status and
    result document (None before it is committed)."""
    number, tmst, stored_input, status, document = row
    number = integer(number, "a batch's number")
    if number < 1:
        raise Damaged(f"a batch's number is {number}, not 1 or more")
    what = f"batch {number}"
    tmst = _batch_time(tmst, f"{what}'s time")
    if status not in STATUSES:
        raise Damaged(f"{what}'s status is {status!r}, not one of {', '.join(STATUSES)}")
    parts = input_parts(stored_input, f"{what}'s input")
    if status == "intent":
        return number, tmst, parts, status, None
    return number, tmst, parts, status, read_document(json_object(document, f"{what}'s result"), f"{what}'s result")


def input_parts(stored: object, what: str) -> dict:
    """The parts of a stored batch input, each checked: the keyword arguments of ``BatchInput``."""
    shaped = json_object(stored, what)
    return {
        "kafka": _each(shaped, "kafka", what, _kafka_range),
        "files": _each(shaped, "files", what, _file_slice),
        "lost": _each(shaped, "lost", what, _natural, listed=False),
        "pending": _each(shaped, "pending", what, text, listed=False),
        "cutoff": _each(shaped, "cutoff", what, integer, listed=False),
        "history": _each(shaped, "history", what, text),
    }


def _each(shaped: dict, key: str, what: str, check: Callable[[object, str], object], listed: bool = True) -> dict:
    """``shaped[key]``: an object of names to a value (or, ``listed``, a list of values), each checked."""
    part = cast(dict, field(shaped, key, dict, what))
    checked: dict = {}
    for name, value in part.items():
        where = f"{what}'s {key} of {name!r}"
        if listed:
            items = cast(list, field(part, name, list, f"{what}'s {key}"))
            checked[name] = [check(item, f"{where}, item {i + 1}") for i, item in enumerate(items)]
        else:
            checked[name] = check(value, where)
    return checked


def _kafka_range(value: object, what: str) -> tuple:
    topic, partition, start, end = _row(value, _RANGE, what)
    for name, number in (("partition", partition), ("start", start), ("end", end)):
        _natural(number, f"{what}'s {name}")
    if start > end:
        raise Damaged(f"{what} is offsets {start} to {end} of {topic}/{partition}, which are not a range of offsets")
    return topic, partition, start, end


def _file_slice(value: object, what: str) -> tuple:
    path, mtime_ns, size = _row(value, _FILE, what)
    _natural(size, f"{what}'s size")  # its modification time may well be before 1970
    return path, mtime_ns, size


def _row(value: object, kinds: tuple[type, ...], what: str) -> tuple:
    if not isinstance(value, list) or len(value) != len(kinds):
        raise Damaged(f"{what} is {value!r:.60}, not a list of {len(kinds)} values")
    return tuple(integer(v, what) if kind is int else text(v, what) for v, kind in zip(value, kinds, strict=True))


def position_row(row: tuple, source: str) -> tuple[tuple[str, int], int]:
    """A ``kafka_positions`` row: ``(topic, partition)`` and the next offset to read."""
    topic, part, offset = row
    what = f"the position of {source!r} on {topic}/{part}"
    return (text(topic, what), _natural(part, what)), _natural(offset, what)


def _batch_time(value: object, what: str) -> int:
    tmst = integer(value, what)
    if not 0 <= tmst < LAST_TMST:
        raise Damaged(f"{what} is {tmst}, not epoch milliseconds of years 1970 to 9999")
    return tmst


def _natural(value: object, what: str) -> int:
    """An offset or a count: an integer of at least 0."""
    offset = integer(value, what)
    if offset < 0:
        raise Damaged(f"{what} is {offset}, below 0")
    return offset


def accuracy_row(row: tuple, rule: str) -> tuple[int, tuple[int, int]]:
    """An ``accuracy_times`` row: a batch time and the rule's ``(total, miss)`` at it."""
    tmst, total, miss = row
    tmst = _batch_time(tmst, f"accuracy rule {rule!r}'s batch time")
    what = f"accuracy rule {rule!r}'s counts at {tmst}"
    return tmst, (_natural(total, what), _natural(miss, what))


def meta_text(meta: dict, key: str) -> str:
    """A ``meta`` value, which every state has."""
    value = meta.get(key)
    if not isinstance(value, str) or not value:
        raise Damaged(f"its meta table has no {key}")
    return value


def meta_format(meta: dict) -> int:
    """The format number the state was written in (1 or more; a newer gryph's is higher)."""
    stored = meta_text(meta, "format")
    if not re.fullmatch("[0-9]+", stored) or int(stored) < 1:
        raise Damaged(f"its format is {stored!r:.40}, not a format number (1 or more)")
    return int(stored)
