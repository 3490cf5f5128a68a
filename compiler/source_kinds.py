"""Every source kind, declared once: its family, the options it takes and their types, which
engines read it and with which package, and whether a stream reads it.

``SourceSpec`` (sources/source_specs.py) checks what it holds against this table, the source
checks read their kind's options from it, and each engine's capabilities say which packages its
kinds need: ``validate --engine spark`` asks the server for them before a run. This module imports
nothing of gryph, so every stage may read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal


class SourceKind(str, Enum):
    """A source's kind: the value is ``SourceSpec.format`` and the DSL's word for it."""

    def __str__(self) -> str:
        return self.value

    CSV = "csv"
    TSV = "tsv"
    PARQUET = "parquet"
    JSON = "json"
    AVRO = "avro"
    ORC = "orc"
    TEXT = "text"
    POSTGRES = "postgres"
    MYSQL = "mysql"
    SQLITE = "sqlite"
    KAFKA = "kafka"
    FOLDER = "folder"
    DELTA = "delta"
    ICEBERG = "iceberg"
    TABLE = "table"  # a table of the engine's catalog
    FRAME = "frame"  # an in-memory Polars, Arrow or pandas table


# files (read by path), a database (a URL or file and a table or query), a stream (a micro-batch
# at a time: stream_sources.py), a lake table (a version of an open table format: lake_tables.py),
# a catalog table, an in-memory frame
Family = Literal["file", "database", "stream", "lake", "catalog", "memory"]
# what a source of the kind names besides its options: files or addresses, a catalog table, a frame
Holds = Literal["paths", "table", "frame"]
# what the paths of a kind that holds paths name: files (taken from the suite's folder when
# relative), addresses (a database's URL, Kafka's brokers), or either a folder or a catalog's name
PathsAre = Literal["files", "addresses", "files_or_names"]


@dataclass(frozen=True)
class Marks:
    """The bytes a binary file of the kind starts (and ends) with, and how errors name them."""

    head: bytes
    tail: bytes
    named: str


@dataclass(frozen=True)
class Option:
    """An option a kind takes: its name and the Python types of the values its check accepts, as
    the parsers give them (none: any value, passed on as given)."""

    name: str
    types: tuple[type, ...] = (str,)


@dataclass(frozen=True)
class Package:
    """What an engine needs to read a kind besides itself: ``name`` as users install it (a Maven
    artifact on Spark, gryph's Python extra on DuckDB) and ``provides``, what asking for it finds
    (the data source name it registers on Spark, the Python module on DuckDB)."""

    name: str
    provides: str


_WHOLE = (int,)
_FLAG = (bool,)
_ANY = ()  # not checked today: any value is passed on (a text is what works)


@dataclass(frozen=True)
class SourceKindSpec:
    """One source kind. ``options``: the options it takes (a native suite's source naming another
    is refused: both engines honour each of these); ``option_prefix`` (if any): options under it are passed on
    (Kafka's consumer settings, an Iceberg catalog's properties); ``packages``: per engine, what it
    needs installed to read the kind; ``text``: its files are lines of delimited text (typed_text.py)."""

    kind: SourceKind
    family: Family
    options: tuple[Option, ...] = ()
    option_prefix: str = ""
    packages: tuple[tuple[str, Package], ...] = ()
    stream: bool = False
    text: bool = False
    # its values are text the engine parses into a declared schema's types (typed_text.py)
    text_values: bool = False
    dsl: bool = True  # a native suite declares it (``text`` comes from Griffin only, ``frame`` from Python)
    paths_are: PathsAre = "files"
    url_schemes: tuple[str, ...] = ()  # a database reached over the network: its URL's schemes
    delimiter: str | None = None  # a delimited text kind's field delimiter when none is given (tsv: a tab)
    reader: str | None = None  # the format engines' file readers know it by, when not its own (tsv: csv)
    marks: Marks | None = None  # a binary file kind's marks, checked before an engine reads the file
    footers: bool = False  # its files describe their columns in footers engines read first (parquet)
    # a stream: the formats its values (a folder's files) may take, and the one read when none is given
    value_formats: tuple[str, ...] = ()
    default_value_format: str | None = None

    @property
    def holds(self) -> Holds:
        return "table" if self.family == "catalog" else "frame" if self.family == "memory" else "paths"

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(option.name for option in self.options)

    @property
    def reader_format(self) -> str:
        """The format name engines' file readers take for it."""
        return self.reader or self.kind.value

    @property
    def networked(self) -> bool:
        """A database reached over the network: it has a connection and statements to wait for."""
        return bool(self.url_schemes)

    def package(self, engine: str) -> Package | None:
        """What ``engine`` needs installed to read this kind (None: nothing besides itself)."""
        return dict(self.packages).get(engine)


_FILE_DATABASE = (
    Option("table"),
    Option("query"),
    Option("user_env", _ANY),
    Option("password_env", _ANY),
    Option("partition_column"),
    Option("num_partitions", _WHOLE),
)
# a database over the network also waits for its connection and statements that long
_DATABASE = (
    *_FILE_DATABASE,
    Option("connect_timeout", (str, int)),  # a duration: "10s", or milliseconds
    Option("statement_timeout", (str, int)),
)
# the options of a delimited text file that say part of its dialect (csv_dialects.py; Spark's
# spellings `sep` and `charset` too)
DIALECT_OPTIONS = ("delimiter", "sep", "quote", "escape", "comment", "header", "encoding", "charset", "multiLine")
# ... and its null markers (null_markers.py), and whether its columns' types are inferred
_DELIMITED_TEXT = tuple(Option(name, _ANY) for name in (*DIALECT_OPTIONS, "nullValue", "inferSchema"))
_SPECS = (
    SourceKindSpec(SourceKind.CSV, "file", _DELIMITED_TEXT, text=True, text_values=True),
    SourceKindSpec(SourceKind.TSV, "file", _DELIMITED_TEXT, text=True, text_values=True, delimiter="\t", reader="csv"),
    SourceKindSpec(
        SourceKind.PARQUET, "file", marks=Marks(b"PAR1", b"PAR1", "the PAR1 marks at its start and end"), footers=True
    ),
    # a field of a declared type is read as its JSON text; `multiLine`: the file is one document
    SourceKindSpec(SourceKind.JSON, "file", (Option("multiLine", _ANY),), text_values=True),
    SourceKindSpec(
        SourceKind.AVRO,
        "file",
        packages=(("spark", Package("spark-avro", "avro")),),
        marks=Marks(b"Obj\x01", b"", "the Obj mark at its start"),
    ),
    SourceKindSpec(SourceKind.ORC, "file", marks=Marks(b"ORC", b"", "the ORC mark at its start")),
    SourceKindSpec(SourceKind.TEXT, "file", dsl=False),
    SourceKindSpec(
        SourceKind.POSTGRES,
        "database",
        _DATABASE,
        packages=(("duckdb", Package("postgres", "adbc_driver_postgresql")),),
        paths_are="addresses",
        url_schemes=("postgresql", "postgres"),
    ),
    SourceKindSpec(
        SourceKind.MYSQL,
        "database",
        _DATABASE,
        packages=(("duckdb", Package("mysql", "connectorx")),),
        paths_are="addresses",
        url_schemes=("mysql",),
    ),
    SourceKindSpec(
        SourceKind.SQLITE, "database", _FILE_DATABASE, packages=(("duckdb", Package("postgres", "adbc_driver_sqlite")),)
    ),
    SourceKindSpec(
        SourceKind.KAFKA,
        "stream",
        (
            Option("topic"),
            Option("topics", _ANY),
            Option("format"),
            Option("starting"),
            Option("max_records_per_batch", _WHOLE),
            Option("on_malformed"),
            Option("accept_data_loss", _FLAG),
        ),
        option_prefix="kafka.",  # the consumer's settings, as Spark's reader takes them
        packages=(("spark", Package("spark-sql-kafka-0-10", "kafka")), ("duckdb", Package("kafka", "confluent_kafka"))),
        stream=True,
        paths_are="addresses",
        value_formats=("json", "csv", "text"),
        default_value_format="text",
    ),
    SourceKindSpec(
        SourceKind.FOLDER,
        "stream",
        (
            Option("format"),
            Option("settle", (str, int)),
            Option("max_files_per_batch", _WHOLE),
            Option("follow_links", _FLAG),
            Option("header", _ANY),
            Option("delimiter", _ANY),
        ),
        stream=True,
        value_formats=("json", "csv", "parquet", "avro"),
        default_value_format="json",
    ),
    SourceKindSpec(
        SourceKind.DELTA,
        "lake",
        (Option("version", _WHOLE), Option("timestamp")),
        packages=(("spark", Package("delta-spark", "delta")), ("duckdb", Package("delta", "deltalake"))),
    ),
    SourceKindSpec(
        SourceKind.ICEBERG,
        "lake",
        (Option("snapshot", _WHOLE),),
        option_prefix="catalog.",  # the catalog's properties: catalog.uri, catalog.warehouse, ...
        packages=(("spark", Package("iceberg-spark-runtime", "iceberg")), ("duckdb", Package("iceberg", "pyiceberg"))),
        paths_are="files_or_names",
    ),
    SourceKindSpec(SourceKind.TABLE, "catalog"),
    SourceKindSpec(SourceKind.FRAME, "memory", dsl=False),
)

SOURCE_KINDS: dict[SourceKind, SourceKindSpec] = {spec.kind: spec for spec in _SPECS}


def source_kind(kind: str) -> SourceKindSpec:
    """The registry's entry for ``kind`` (a ``SourceKind`` or its value; a ValueError names an unknown one)."""
    return SOURCE_KINDS[SourceKind(kind)]


def dsl_keywords() -> tuple[str, ...]:
    """The words that start a native suite's source, one per kind declared in the DSL."""
    return tuple(spec.kind.value for spec in _SPECS if spec.dsl)


def packages_of(engine: str) -> dict[SourceKind, Package]:
    """The kinds ``engine`` reads only with a package, and that package."""
    return {spec.kind: package for spec in _SPECS if (package := spec.package(engine)) is not None}
