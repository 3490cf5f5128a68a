"""What an engine offers the client: the one interface DuckDB and Spark Connect both implement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .plan import Plan, View
from .plan.data_types import Schema
from .sources.source_specs import SourceSpec

Rows = list[dict[str, object]]


class Engine(Protocol):
    """Runs plans. Rows come back as dicts of plain Python values (see ``values.normalize``)."""

    name: str

    def schema_of(self, source: SourceSpec) -> Schema:
        """The schema of a source, read without scanning its rows where the format allows."""

    def schema_of_view(self, views: tuple[View, ...], sources: Mapping[str, SourceSpec]) -> Schema:
        """The schema of the last of ``views`` (registered in order), without scanning data."""

    def run(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> dict[str, Rows]:
        """Register ``plan.views``, run every query and return its rows by query name."""

    def one_step(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> bool:
        """Whether the plan's conditional queries (record samples, which return no rows when their
        record output has none) cost less run with the others than in a step of their own."""

    def close(self) -> None:
        """Release what the engine holds (connections, temporary views)."""
