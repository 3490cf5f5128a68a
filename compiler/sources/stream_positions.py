"""Where a stream source stands, typed: what one batch reads of it.

A Kafka source's batch reads per partition a ``KafkaRange`` of offsets, a folder's batch a
``FileSlice`` per file (the file as it was listed). The stream state stores each as the list of
its fields (``to_state``) and reads it back from one (``from_state``, the values checked by the
state's reader first): the shape stream states have always had, so a state written before loads.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass


@dataclass(frozen=True, order=True)
class KafkaRange:
    """The offsets ``[start, end)`` of one partition of a topic."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def part(self) -> tuple[str, int]:
        return self.topic, self.partition

    @property
    def empty(self) -> bool:
        return self.start >= self.end

    def to_state(self) -> list[object]:
        return list(astuple(self))

    @classmethod
    def from_state(cls, row: tuple[str, int, int, int]) -> KafkaRange:
        return cls(*row)


@dataclass(frozen=True, order=True)
class FileSlice:
    """A file of a folder source as the batch listed it: its modification time and size then."""

    path: str
    mtime_ns: int
    size: int

    def to_state(self) -> list[object]:
        return list(astuple(self))

    @classmethod
    def from_state(cls, row: tuple[str, int, int]) -> FileSlice:
        return cls(*row)
