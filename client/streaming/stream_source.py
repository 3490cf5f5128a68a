"""The one shape every stream source has for the batch loop, after Spark's ``SparkDataStream``
with ``SupportsAdmissionControl`` and Bytewax's partitioned inputs: the source owns its position.

A batch asks each source where the stream left it (``start``, from the committed state), admits
what the next batch reads up to its limit (``bound``: a ``KafkaRange`` per partition or a
``FileSlice`` per file, and what waits beyond), and hands the engine a spec bounded to exactly that
(``bounded``). The positions go into the batch's intent and commit as their own state rows
(``to_state``/``from_state`` of the position types, stream_positions.py); the loop in
stream_runner.py logs the intent and the commit and knows nothing of Kafka or folders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import FileSlice, KafkaRange
from gryph.compiler.suites.suite import Suite

if TYPE_CHECKING:
    from ..results.run_result import RunResult
    from ..store.stream_state import BatchInput, StreamState

Position = TypeVar("Position", KafkaRange, FileSlice)
Start = TypeVar("Start")


@dataclass(frozen=True)
class Bound(Generic[Position]):
    """What one batch of a source reads, in reading order; how much waits beyond it (its lag);
    how many offsets the broker deleted before they were read (a suite that accepts loss)."""

    read: tuple[Position, ...]
    lag: int = 0
    lost: int = 0


class StreamSource(Protocol[Start, Position]):
    """A stream source of a suite, for the batch loop, ``gryph stream status`` and ``reset``."""

    @property
    def spec(self) -> SourceSpec:
        """The source as the suite declares it."""
        ...

    @property
    def part(self) -> Literal["kafka", "files"]:
        """The part of a batch's input (and of its stored intent) its positions go in."""
        ...

    @property
    def default_limit(self) -> int | None:
        """What one batch reads at most (records per partition, files), as declared; None: all there is."""
        ...

    def latest(self) -> tuple[Position, ...]:
        """All the source holds now: per partition the offsets the broker keeps, the settled files."""
        ...

    def earliest(self) -> tuple[Position, ...]:
        """Nothing read yet: where ``reset --to earliest`` puts the source."""
        ...

    def start(self, state: StreamState) -> Start:
        """Where the next batch starts, as the stream's committed state has it."""
        ...

    def bound(self, start: Start, limit: int | None) -> Bound[Position]:
        """What the next batch reads from ``start``: at most ``limit`` records (per partition) or files."""
        ...

    def bounded(self, read: Sequence[Position], tmst: int) -> SourceSpec:
        """The spec an engine reads: the source bounded to ``read``, every row stamped ``tmst``."""
        ...

    def readable(self, read: Sequence[Position]) -> tuple[tuple[Position, ...], dict[str, list[str]]]:
        """What of ``read`` the engine reads, asked right before it does, and what is left out
        (by why; named in the batch's result)."""
        ...

    def sample(self) -> tuple[Position, ...]:
        """The newest of what is there now: what validation reads when it needs documents."""
        ...

    def unplanned(self, read: Sequence[Position]) -> tuple[str, str] | None:
        """The first position of a stored ``read`` this source could not have planned: what it
        is and why (replayed_inputs.py); None when every one could."""
        ...

    def describe(self, batch_input: BatchInput, result: RunResult, lag: int, left_out: dict[str, list[str]]) -> dict:
        """What the batch read of the source, as its result document's ``stream`` part shows it."""
        ...

    def read_nothing(self, batch_input: BatchInput, result: RunResult) -> bool:
        """Whether the batch found nothing new in the source (then, for every source, it is skipped)."""
        ...

    def status(self, state: StreamState) -> list[str]:
        """``gryph stream status``'s lines: where the source stands and what waits beyond."""
        ...


def declared_limit(spec: SourceSpec, option: str) -> int | None:
    """The cap a source declares on a batch (checked a whole number when the suite was read)."""
    cap = spec.option(option)
    return None if cap is None else int(str(cap))


def stream_sources(suite: Suite) -> dict[str, StreamSource]:
    """The suite's stream sources, by name, in the suite's order."""
    from .folder_stream import FolderStream
    from .kafka_stream import KafkaStream

    kinds: dict[SourceKind, Callable[[SourceSpec], StreamSource]] = {
        SourceKind.KAFKA: KafkaStream,
        SourceKind.FOLDER: FolderStream,
    }
    return {name: kinds[suite.sources[name].kind.kind](suite.sources[name]) for name in suite.streams}
