"""Where a source's rows come from: the part of a suite that engines need to load data."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Location
from .types import Schema

FILE_FORMATS = ("csv", "tsv", "parquet", "json", "avro", "orc", "text")
FORMATS = FILE_FORMATS + ("table", "frame")


@dataclass(frozen=True)
class SourceSpec:
    """A named input: files of a format, a catalog table, or an in-memory frame.

    ``schema`` (optional) is the user's declared schema: columns are read with these names and
    types. ``options`` are reader options (``header``, ``delimiter``, ...), values as given.
    ``frame`` holds an in-memory Polars, Arrow or pandas table for ``format == "frame"``.
    """

    name: str
    format: str
    paths: tuple[str, ...] = ()
    table: str | None = None
    options: tuple[tuple[str, object], ...] = ()
    schema: Schema | None = None
    frame: object = field(default=None, compare=False, hash=False, repr=False)
    # where the user declared it: errors reading it point there
    location: Location | None = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown source format {self.format!r}")

    def option(self, key: str, default: object = None) -> object:
        for name, value in self.options:
            if name == key:
                return value
        return default

    def describe(self) -> str:
        """A short human description: ``csv("data/users.csv")``."""
        if self.format == "table":
            return f'table("{self.table}")'
        if self.format == "frame":
            return "frame"
        return f'{self.format}(' + ", ".join(f'"{p}"' for p in self.paths) + ")"
