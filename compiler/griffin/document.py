"""A JSON config read with the position of every value, and typed access that fails located.

Griffin configs come from people and tools; a value of the wrong JSON type must end in an error
that names its JSON path, line and column, never in a Python exception. Positions are found by
walking the text once alongside ``json`` (never by searching for a value's text, which finds the
wrong occurrence or none).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from json.scanner import NUMBER_RE
from pathlib import Path
from typing import Literal, overload

from ..errors import InvalidInput, Location, closest, did_you_mean
from ..support.text_files import read_utf8

_SPACE = re.compile(r"[ \t\n\r]*")
_WORDS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")

JsonPath = tuple[str | int, ...]  # a JSON path: keys and list indexes from the root

# json's own string scanner (C where available): (text, index after the quote) -> (string, end)
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _after_space(text: str, index: int) -> int:
    """The index of the first character at or after ``index`` that is not JSON white space."""
    space = _SPACE.match(text, index)
    assert space is not None  # [ \t\n\r]* matches anywhere, if only the empty string
    return space.end()


def _positions(text: str) -> dict[JsonPath, int]:
    """The offset of every value (and, under ``(*path, key, ":key")``, every key) in valid JSON."""
    found: dict[JsonPath, int] = {}

    def value(index: int, path: JsonPath) -> int:
        index = _after_space(text, index)
        found[path] = index
        char = text[index]
        if char == "{":
            return container(index + 1, path, "}", keyed=True)
        if char == "[":
            return container(index + 1, path, "]", keyed=False)
        if char == '"':
            return _scanstring(text, index + 1)[1]
        number = NUMBER_RE.match(text, index)
        if number:
            return number.end()
        word = next(w for w in _WORDS if text.startswith(w, index))
        return index + len(word)

    def container(index: int, path: JsonPath, close: str, keyed: bool) -> int:
        index = _after_space(text, index)
        if text[index] == close:
            return index + 1
        position = 0
        while True:
            index = _after_space(text, index)
            if keyed:
                key_at = index
                key, index = _scanstring(text, index + 1)
                key_path = (*path, key, ":key")
                found[key_path] = key_at
                index = _after_space(text, index) + 1  # past ':'
                index = value(index, (*path, key))
            else:
                index = value(index, (*path, position))
            position += 1
            index = _after_space(text, index)
            if text[index] == close:
                return index + 1
            index += 1  # past ','

    value(0, ())
    return found


class Document:
    """A parsed JSON file: its data, and where each value stands in the text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = str(path)
        text = read_utf8(path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInput(
                "BAD_CONFIG",
                f"not valid JSON: {error.msg}",
                location=Location(self.file, error.lineno, error.colno),
                text=_line_at(text, error.lineno),
            ) from None
        except RecursionError:
            raise InvalidInput("BAD_CONFIG", "JSON nested too deeply", location=Location(self.file, 1, 1)) from None
        except ValueError:  # Python refuses integers of more than 4300 digits
            long_number = re.search(r"\d{4000,}", text)
            offset = long_number.start() if long_number else 0
            line = text.count("\n", 0, offset) + 1
            raise InvalidInput(
                "BAD_CONFIG",
                "a number in the config is too long to read",
                location=Location(self.file, line, offset - (text.rfind("\n", 0, offset) + 1) + 1),
                text=text[offset : offset + 20] + "...",
            ) from None
        self.text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._offsets = _positions(text)
        self.root = Node(self, data, ())

    def location(self, path: JsonPath) -> Location:
        """Where the value at ``path`` starts (its nearest located ancestor if it has none)."""
        while path not in self._offsets and path:
            path = path[:-1]
        offset = self._offsets.get(path)
        if offset is None:
            return Location(self.file)
        line = bisect.bisect_right(self._line_starts, offset)
        return Location(self.file, line, offset - self._line_starts[line - 1] + 1)

    def key_location(self, path: JsonPath) -> Location:
        """Where the key of the member at ``path`` stands."""
        return self.location((*path, ":key")) if (*path, ":key") in self._offsets else self.location(path)


def _line_at(text: str, line: int) -> str | None:
    lines = text.splitlines()
    return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else None


_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string", type(None): "null"}


def json_path(path: JsonPath) -> str:
    """``data.sources[0].connector`` for a path of keys and indexes."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(the document)"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


class Node:
    """One value of a document, with typed accessors whose failures name the value's place."""

    __slots__ = ("doc", "path", "value")

    def __init__(self, doc: Document, value: object, path: JsonPath) -> None:
        self.doc = doc
        self.value = value
        self.path = path

    @property
    def location(self) -> Location:
        return self.doc.location(self.path)

    @property
    def where(self) -> str:
        return json_path(self.path)

    def error(self, code: str, message: str, hint: str | None = None, *, at_key: bool = False) -> InvalidInput:
        """An error about this value, located at it (or at its key)."""
        location = self.doc.key_location(self.path) if at_key else self.location
        text = self.path[-1] if at_key and self.path else _excerpt(self.value)
        return InvalidInput(code, message, location=location, text=str(text), hint=hint)

    # -- members of an object -------------------------------------------------------------------
    def has(self, key: str) -> bool:
        return isinstance(self.value, dict) and key in self.value

    def child(self, key: str | int) -> Node:
        """The member ``key`` of an object (or item of a list); a missing one is a null node."""
        value = self.value.get(key) if isinstance(self.value, dict) else None
        if isinstance(self.value, list) and isinstance(key, int):
            value = self.value[key]
        return Node(self.doc, value, (*self.path, key))

    def keys(self) -> list[str]:
        return list(self.value) if isinstance(self.value, dict) else []

    # -- typed reads ------------------------------------------------------------------------------
    def _expect(self, kinds: tuple[type, ...], what: str) -> None:
        if not isinstance(self.value, kinds) or (bool not in kinds and isinstance(self.value, bool)):
            raise self.error("BAD_CONFIG", f"{self.where} must be {what}, not {_kind(self.value)}")

    def obj(self, key: str, required: bool = False) -> Node:
        """The object member ``key`` (an empty object when absent and not required)."""
        node = self.child(key)
        if node.value is None:
            if required:
                raise self.missing(key, "an object")
            return Node(self.doc, {}, node.path)
        node._expect((dict,), "an object")
        return node

    def items(self, key: str, required: bool = False, of: str = "") -> list[Node]:
        """The list member ``key`` as nodes (empty when absent and not required)."""
        node = self.child(key)
        if node.value is None:
            if required:
                raise self.missing(key, "a list")
            return []
        node._expect((list,), "a list")
        assert isinstance(node.value, list)  # _expect refused anything else
        return [node.child(index) for index in range(len(node.value))]

    @overload
    def text(self, key: str, default: str, required: bool = False) -> str: ...
    @overload
    def text(self, key: str, default: None = None, *, required: Literal[True]) -> str: ...
    @overload
    def text(self, key: str, default: str | None = None, required: bool = False) -> str | None: ...
    def text(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        """The string member ``key``; numbers and booleans are taken as their JSON text."""
        node = self.child(key)
        if node.value is None:
            if required:
                raise self.missing(key, "a string")
            return default
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if isinstance(node.value, (int, float)):
            return json.dumps(node.value)
        node._expect((str,), "a string")
        assert isinstance(node.value, str)  # _expect refused anything else
        return node.value

    def flag(self, key: str, default: bool) -> bool:
        """A boolean member: JSON's true or false (the text "true" is refused: a quoted flag is
        most often a slip, and the error names the key)."""
        node = self.child(key)
        if node.value is None:
            return default
        if isinstance(node.value, bool):
            return node.value
        quoted = node.value.strip().lower() if isinstance(node.value, str) else None
        hint = f"write {quoted} without quotes" if quoted in ("true", "false") else None
        raise node.error("BAD_CONFIG", f"{node.where} must be true or false, not {_kind(node.value)}", hint)

    @overload
    def number(self, key: str, default: float) -> float: ...
    @overload
    def number(self, key: str, default: None = None) -> float | None: ...
    def number(self, key: str, default: float | None = None) -> float | None:
        """A numeric member, also given as numeric text; a finite number."""
        node = self.child(key)
        if node.value is None:
            return default
        value = node.value
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                value = None
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or value != value
            or value in (float("inf"), float("-inf"))
        ):
            raise node.error("BAD_CONFIG", f"{node.where} must be a finite number, not {_kind(node.value)}")
        return value

    def missing(self, key: str, what: str) -> InvalidInput:
        where = json_path((*self.path, key))
        return InvalidInput(
            "BAD_CONFIG",
            f"{where} is required: {what}",
            location=self.location,
            text=_excerpt(self.value),
            hint=_rename_hint(key, self.keys()),
        )

    def unknown_value(self, allowed: Sequence[str], what: str) -> InvalidInput:
        """An error for a value outside ``allowed``, with the closest allowed one as hint."""
        value = str(self.value)
        hint = did_you_mean(value, allowed) or f"one of: {', '.join(allowed)}"
        return self.error("BAD_CONFIG", f"unknown {what} {value!r} at {self.where}", hint)


def _rename_hint(key: str, present: list[str]) -> str | None:
    """For a missing ``key``: the present key that looks like a misspelling of it."""
    near = closest(key, present)
    return f"rename {near!r} to {key!r}" if near is not None else None


def _excerpt(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def load_document(path: str | Path) -> Document:
    """Read and parse a JSON config file."""
    return Document(Path(path))
