"""A whole plan: views to register, then queries whose rows come back to the client."""

from __future__ import annotations

from dataclasses import dataclass

from .relations import Relation


@dataclass(frozen=True, slots=True)
class View:
    """A relation registered under ``name`` before the queries run (pre-processing steps)."""

    name: str
    relation: Relation


@dataclass(frozen=True, slots=True)
class Query:
    """A relation whose rows are collected; ``limit`` bounds what crosses the wire."""

    name: str
    relation: Relation
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one run computes. Engines run views in order, then every query."""

    views: tuple[View, ...]
    queries: tuple[Query, ...]

    def __post_init__(self) -> None:
        names = [q.name for q in self.queries]
        if len(names) != len(set(names)):
            raise ValueError("query names must be unique")

    def query(self, name: str) -> Query:
        for query in self.queries:
            if query.name == name:
                return query
        raise KeyError(name)
