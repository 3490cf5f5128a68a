"""What an engine offers the client: the one interface DuckDB and Spark Connect both implement."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from .errors import EngineError, UnsupportedError
from .plan import Plan, View
from .plan.data_types import Schema
from .plan.node import Node, walk_nodes
from .source_kinds import Package, SourceKind, packages_of
from .sources.lake_tables import TableLog
from .sources.source_specs import SourceSpec

Rows = list[dict[str, object]]


class Gap(str, Enum):
    """Why an engine refuses a feature (ibis's ``notimpl`` and ``notyet``)."""

    NOT_IMPLEMENTED = "not implemented"  # the engine could run it; gryph does not yet
    NOT_POSSIBLE = "not possible"  # the engine itself cannot


def unsupported_message(what: str, engine: str, gap: Gap | None = None) -> str:
    """The one wording of a refusal, whether ``validate`` finds it or the engine meets it."""
    return f"{what} is not supported on {engine}" + (f" ({gap.value})" if gap is not None else "")


def unsupported(what: str, engine: str, gap: Gap | None = None, hint: str | None = None) -> UnsupportedError:
    """An engine's refusal of ``what``; ``gap`` where the engine declares it (see ``Refusal``)."""
    return UnsupportedError("UNSUPPORTED_ON_ENGINE", unsupported_message(what, engine, gap), hint=hint)


@dataclass(frozen=True)
class Refusal:
    """A feature an engine declares it does not run: ``applies`` finds it in one plan node."""

    feature: str
    gap: Gap
    reason: str
    applies: Callable[[Node], bool]


@dataclass(frozen=True)
class Capabilities:
    """What an engine declares about itself: the features it refuses, and the names of the
    rewrite passes its ``run`` applies to a plan, in the order it applies them."""

    engine: str
    refusals: tuple[Refusal, ...] = ()
    rewrites: tuple[str, ...] = ()

    @property
    def packages(self) -> dict[SourceKind, Package]:
        """The source kinds the engine reads only with a package, and that package (source_kinds.py)."""
        return packages_of(self.engine)

    def refusal(self, feature: str) -> Refusal:
        """The declared refusal of ``feature`` (a KeyError names an undeclared one)."""
        for refusal in self.refusals:
            if refusal.feature == feature:
                return refusal
        raise KeyError(f"{self.engine} declares no refusal of {feature!r}")

    def refuse(self, feature: str) -> UnsupportedError:
        """The error the engine raises when it meets a declared refusal while running a plan."""
        refusal = self.refusal(feature)
        return unsupported(refusal.feature, self.engine, refusal.gap, refusal.reason)

    def refused_in(self, nodes: Iterable[Node]) -> Iterator[tuple[Refusal, Node]]:
        """Each refused feature under ``nodes``, with the node that holds it, without running anything."""
        for root in nodes:
            for node in walk_nodes(root, Node):
                for refusal in self.refusals:
                    if refusal.applies(node):
                        yield refusal, node


class Engine(Protocol):
    """Runs plans. Rows come back as dicts of plain Python values (see ``values.normalize``)."""

    name: str
    capabilities: Capabilities

    def schema_of(self, source: SourceSpec) -> Schema:
        """The schema of a source, read without scanning its rows where the format allows."""

    def schema_of_view(self, views: tuple[View, ...], sources: Mapping[str, SourceSpec]) -> Schema:
        """The schema of the last of ``views`` (registered in order), without scanning data."""

    def table_log(self, source: SourceSpec) -> TableLog:
        """What a Delta or Iceberg source's log says of the version it reads (no data scanned)."""

    def missing_packages(self, sources: Sequence[SourceSpec]) -> list[EngineError]:
        """An error, located at its declaration, per source of ``sources`` whose kind needs a
        package (``capabilities.packages``) that this engine lacks; asked before a run."""

    def run(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> dict[str, Rows]:
        """Register ``plan.views``, run every query and return its rows by query name."""

    def one_step(self, plan: Plan, sources: Mapping[str, SourceSpec]) -> bool:
        """Whether the plan's conditional queries (record samples, which return no rows when their
        record output has none) cost less run with the others than in a step of their own."""

    def close(self) -> None:
        """Release what the engine holds (connections, temporary views)."""
