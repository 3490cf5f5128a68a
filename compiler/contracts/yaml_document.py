"""A YAML document read with the position of every key and value, so errors point into it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import InvalidInput, Location

Path = tuple[str | int, ...]  # keys and list indexes from the root
YamlMap = dict[str, Any]  # a mapping of the document


def show_path(path: Path) -> str:
    """``("schema", 0, "properties", 2)`` as ``schema[0].properties[2]``."""
    shown = ""
    for part in path:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else part)
    return shown


@dataclass(frozen=True)
class YamlDocument:
    """The document's data and, per path, where its value (and under ``(*path, ":key")`` its key) stands."""

    data: object
    marks: dict[Path, tuple[int, int]]
    file: str | None

    def location(self, path: Path) -> Location:
        """Where ``path`` stands, else the nearest of its parents that the document has."""
        while path not in self.marks and path:
            path = path[:-1]
        line, column = self.marks.get(path, (1, 1))
        return Location(self.file, line, column)

    def key_location(self, path: Path) -> Location:
        """Where the key of ``path`` is written (its value's place when it has none)."""
        key_path = (*path, ":key")
        if key_path in self.marks:
            line, column = self.marks[key_path]
            return Location(self.file, line, column)
        return self.location(path)


def read_yaml(text: str, file: str | None) -> YamlDocument:
    """The one YAML document in ``text``; a syntax error is located at its line and column."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        raise InvalidInput("SYNTAX_ERROR", f"not YAML: {exc.problem or exc.context}", location=where) from None
    except yaml.YAMLError as exc:
        raise InvalidInput("SYNTAX_ERROR", f"not YAML: {exc}", location=Location(file)) from None
    marks: dict[Path, tuple[int, int]] = {}
    data = _value(node, (), marks) if node is not None else None
    return YamlDocument(data, marks, file)


def _value(node: yaml.Node, path: Path, marks: dict[Path, tuple[int, int]]) -> object:
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, object] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            key_path = (*path, key, ":key")
            marks[key_path] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            mapping[key] = _value(value_node, (*path, key), marks)
        return mapping
    if isinstance(node, yaml.SequenceNode):
        return [_value(item, (*path, index), marks) for index, item in enumerate(node.value)]
    return _scalar(node)


def _scalar(node: yaml.Node) -> object:
    """A scalar as SafeLoader reads it (ints, floats, booleans, null; dates stay text, as JSON has them)."""
    loader = yaml.SafeLoader("")
    value = loader.construct_object(node)
    loader.dispose()
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        return node.value  # a YAML date or timestamp: the text written, as the JSON Schema expects
    return value
