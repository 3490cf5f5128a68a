"""The common base of plan nodes: children and rebuilding derived from the dataclass fields.

A node's fields hold other nodes directly, in tuples (nested ones too), or inside *parts*:
small frozen dataclasses such as ``Named`` and ``SortKey`` that are not nodes themselves but
carry nodes. Walkers ask a node for its sub-nodes of one kind (relations, or scalars) and
rebuild it with those replaced, so a new node type needs no edit in any generic walker.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

N = TypeVar("N", bound="Node")


class Node:
    """Base of every plan node (a frozen, slotted dataclass)."""

    __slots__ = ()

    def parts_of(self, kind: type[N]) -> tuple[N, ...]:
        """The nodes of ``kind`` in this node's fields (not looking inside them), in field order."""
        found: list[N] = []
        for name in _attribute_names(type(self)):
            _collect(getattr(self, name), kind, found)
        return tuple(found)

    def rebuilt(self: N, kind: type[Node], fn: Callable[[Any], Any]) -> N:
        """This node with every sub-node of ``kind`` in its fields replaced by ``fn(sub)``.

        The node itself when nothing changed, so an unchanged tree is not validated again.
        """
        rebuilt: N = _with_fields_mapped(self, kind, fn)
        return rebuilt


class Part:
    """A frozen dataclass that is not a node but holds nodes (an output name, a sort key)."""

    __slots__ = ()


def _collect(value: object, kind: type[N], found: list[N]) -> None:
    if isinstance(value, kind):
        found.append(value)
    elif isinstance(value, tuple):
        for item in value:
            _collect(item, kind, found)
    elif isinstance(value, Part):
        for name in _attribute_names(type(value)):
            _collect(getattr(value, name), kind, found)


_ATTRIBUTE_NAMES: dict[type, tuple[str, ...]] = {}


def _attribute_names(cls: type) -> tuple[str, ...]:
    """The field names of a node or part class, remembered (``dataclasses.fields`` costs a walk
    per call, and walkers ask for every node of every plan)."""
    names = _ATTRIBUTE_NAMES.get(cls)
    if names is None:
        names = _ATTRIBUTE_NAMES[cls] = tuple(field.name for field in dataclasses.fields(cls))
    return names


def _map(value: Any, kind: type[Node], fn: Callable[[Any], Any]) -> Any:
    """``value`` with the nodes of ``kind`` in it replaced; ``value`` itself if none changed."""
    if isinstance(value, kind):
        return fn(value)
    if isinstance(value, tuple):
        items = tuple(_map(item, kind, fn) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, Part):
        return _with_fields_mapped(value, kind, fn)
    return value


def _with_fields_mapped(obj: Any, kind: type[Node], fn: Callable[[Any], Any]) -> Any:
    """The dataclass ``obj`` with the nodes of ``kind`` in its fields mapped; ``obj`` if none changed."""
    changes = {}
    for name in _attribute_names(type(obj)):
        old = getattr(obj, name)
        new = _map(old, kind, fn)
        if new is not old:
            changes[name] = new
    return dataclasses.replace(obj, **changes) if changes else obj


def concrete_types(base: type[N]) -> tuple[type[N], ...]:
    """Every dataclass below ``base`` that its module defines, in definition order: the node registry.

    ``slots=True`` makes a dataclass anew, so the class tree may still hold the first draft:
    only the class its module's name stands for counts.
    """
    out: list[type[N]] = []

    def visit(cls: type[N]) -> None:
        for sub in cls.__subclasses__():
            defined = getattr(sys.modules[sub.__module__], sub.__name__, None) is sub
            if defined and dataclasses.is_dataclass(sub) and sub not in out:
                out.append(sub)
            visit(sub)

    visit(base)
    return tuple(out)


def walk_nodes(node: N, kind: type[N]) -> Iterator[N]:
    """``node`` and every node of ``kind`` beneath it, depth first."""
    yield node
    for child in node.parts_of(kind):
        yield from walk_nodes(child, kind)
