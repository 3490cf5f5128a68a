"""Where a source's rows come from: the part of a suite that engines need to load data."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidInput, Location, did_you_mean
from ..plan.data_types import Schema
from ..redaction import redact
from ..source_kinds import SOURCE_KINDS, SourceKindSpec, source_kind
from .stream_positions import KafkaRange


@dataclass(frozen=True)
class SourceSpec:
    """A named input: files of a format, a catalog table, a database, or an in-memory frame.

    ``schema`` (optional) is the user's declared schema: columns are read with these names and
    types. ``options`` are reader options (``header``, ``delimiter``, ...), values as given.
    A database source (``postgres``, ``mysql``, ``sqlite``: see databases.py) holds its URL or file in
    ``paths`` and its ``table`` or ``query`` among the options; a Delta or Iceberg table (lake_tables.py)
    its folder or catalog name in ``paths`` and the version to read among the options. ``frame`` holds an in-memory Polars, Arrow or pandas table for ``format == "frame"``.
    """

    name: str
    format: str
    paths: tuple[str, ...] = ()
    table: str | None = None
    options: tuple[tuple[str, object], ...] = ()
    schema: Schema | None = None
    frame: object = field(default=None, compare=False, hash=False, repr=False)
    # a stream's batch time (epoch ms): engines add it to every row as the column ``__tmst``
    stamp: int | None = None
    # a Kafka source bounded to a stream's batch: the offsets it reads of each partition
    ranges: tuple[KafkaRange, ...] = ()
    # engines add each row's number in its file (1, 2, ... in file order) as this column: typed_text.py
    row_number: str | None = None
    # where the user declared it: errors reading it point there
    location: Location | None = field(default=None, compare=False, hash=False, repr=False)
    # the declaration as the user wrote it there (``csv("data/users.csv")``, its paths not yet
    # taken from the suite's folder): what those errors quote
    written: str | None = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.format not in SOURCE_KINDS:
            raise ValueError(f"unknown source format {self.format!r}")
        # what every engine needs to read it, decided here once rather than by each engine
        holds = self.kind.holds
        if holds == "paths" and self.kind.family != "database" and not self.paths:
            raise InvalidInput(
                "SOURCE_NO_PATH", f"source {self.name!r} ({self.format}) names no file", location=self.location
            )
        if holds == "table" and not self.table:
            raise InvalidInput("SOURCE_NO_TABLE", f"source {self.name!r} names no table", location=self.location)
        if holds == "frame" and self.frame is None:
            raise InvalidInput("SOURCE_NO_FRAME", f"source {self.name!r} has no frame", location=self.location)

    @property
    def kind(self) -> SourceKindSpec:
        """Its kind's declaration: family, options, the packages engines need to read it."""
        return source_kind(self.format)

    @property
    def table_name(self) -> str:
        """The catalog table a ``table`` source reads (present: checked when it was built)."""
        assert self.table, f"{self.format} source {self.name!r} has no table"
        return self.table

    def __repr__(self) -> str:  # no secret in a URL or an option ever shows, not even in a repr
        return redact(
            f"SourceSpec(name={self.name!r}, format={self.format!r}, paths={self.paths!r}, table={self.table!r}, "
            f"options={self.options!r}, schema={self.schema!r})"
        )

    def option(self, key: str, default: object = None) -> object:
        for name, value in self.options:
            if name == key:
                return value
        return default

    def as_written(self) -> str:
        """The declaration as written, without any secret it holds: what an error at it quotes
        (``describe()`` of a source declared nowhere, a frame's)."""
        return redact(self.written) if self.written else self.describe()

    def describe(self) -> str:
        """A short human description: ``csv("data/users.csv")``, without any secret its URL holds."""
        return redact(self._description())

    def _description(self) -> str:
        family = self.kind.family
        if family == "catalog":
            return f'table("{self.table}")'
        if family == "memory":
            return "frame"
        if "topic" in self.kind.option_names:  # a topic's brokers: the topic says which
            return f'kafka("{self.paths[0]}", topic = "{self.option("topic") or self.option("topics")}")'
        if family == "database":
            what = ", ".join(f'{key} = "{value}"' for key, value in self.options if key in ("table", "query"))
            return f'{self.format}("{self.paths[0]}", {what})'
        if family == "lake":  # the version it reads, as declared
            at = "".join(f", {key} = {value!r}" for key, value in self.options if key in self.kind.option_names)
            return f'{self.format}("{self.paths[0]}"{at})'.replace("'", '"')
        return f"{self.format}(" + ", ".join(f'"{p}"' for p in self.paths) + ")"


def check_option_names(spec: SourceSpec, shown: tuple[str, ...] = ()) -> None:
    """Refuse, located, an option ``spec``'s kind does not take (``delimeter``, ``nulValue``: a
    typo would otherwise be read as nothing), with the closest it takes; ``shown``: examples of
    its prefix's options for the hint."""
    kind = spec.kind
    prefix = kind.option_prefix
    for key, _ in spec.options:
        if prefix and key.startswith(prefix) and len(key) > len(prefix):
            continue  # settings passed on, checked where they are (consumer_settings.py)
        if key not in kind.option_names:
            names = (*kind.option_names, *shown)
            none = "no option but schema" if kind.family == "file" else "no options"
            raise InvalidInput(
                "BAD_SOURCE",
                f"source {spec.name!r}: {spec.format}(...) has no option {key!r}",
                location=spec.location,
                text=key,
                hint=did_you_mean(key, names) or f"{spec.format}(...) takes {none}",
            )
