"""The check language's evaluable tree: what ``check_tree`` builds and ``interpreter`` evaluates."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Const:
    value: object


@dataclass(frozen=True, slots=True)
class ListOf:
    items: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class MeasureRef:
    """``measures["name"]``."""

    name: str


@dataclass(frozen=True, slots=True)
class MetricRef:
    """``metrics["rule"]``: the rule's metric map (a list of rows for profiling)."""

    rule: str


@dataclass(frozen=True, slots=True)
class Index:
    base: object
    index: object


@dataclass(frozen=True, slots=True)
class Call:
    fn: str
    args: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # - + not
    operand: object


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # + - * / % == != < > <= >= and or
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Traced:
    """A value worth showing when a check fails: a measure, metric or function call, by its text."""

    text: str
    expr: object
