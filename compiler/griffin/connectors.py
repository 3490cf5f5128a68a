"""Griffin's ``data.sources``: each connector read as a source, then ``where`` filters, ``pre.proc``
steps, the union of several connectors and the ``__tmst`` column as views, as Griffin builds them.

A data source with one plain connector is a source of its own name (a plain scan that the plan
prunes and shares). Anything more goes through views with names of their own, so no step ever
reads a view that a later step re-binds (DuckDB resolves view names late). Inside a step, the
frame being prepared (``this``, or the connector's ``dataframe.name``) and the names earlier
steps wrote are common table expressions of that step.
"""

from __future__ import annotations

import glob
import os
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import EngineError
from ..plan.data_types import Schema
from ..source_kinds import source_kind
from ..sources.databases import check_database_source
from ..sources.declared_schemas import parse_schema_columns
from ..sources.source_specs import SourceSpec
from ..spark_dialect.spark_names import quoted, with_frames
from ..suites.suite import ViewSpec
from .df_ops import from_json_view, is_df_ops
from .document import Node
from .known_keys import KNOWN_KEYS, check_keys
from .sql_text import check_condition
from .streaming import Checkpoint, NotApplied, kafka_source, read_checkpoint
from .time_patterns import fill_time_patterns

# Griffin's file formats (FileBasedDataConnector.SupportedFormats), as gryph reads them
FILE_FORMATS = {
    "parquet": "parquet",
    "orc": "orc",
    "avro": "avro",
    "com.databricks.spark.avro": "avro",
    "text": "text",
    "csv": "csv",
    "tsv": "tsv",
    "json": "json",
}
# connectors that exist in Griffin but read from services this tool does not reach
ELSEWHERE = {
    "kafka": 'a stream (in a job of "process.type": "streaming", run with gryph stream)',
    "elasticsearch": "an Elasticsearch index",
    "custom": "a connector class of Griffin's JVM",
    "mongo": "a MongoDB collection",
    "mongodb": "a MongoDB collection",
}


@dataclass
class DataSources:
    """What ``data.sources`` becomes: sources, views in order, and names with the baseline first.
    In a streaming job also each data source's checkpoint, the data sources whose rows are a
    stream's, and per such data source the stream it reads (its connectors' brokers and topics)."""

    sources: dict[str, SourceSpec] = field(default_factory=dict)
    views: list[ViewSpec] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    locations: dict[str, Node] = field(default_factory=dict)  # data source name -> its node
    checkpoints: dict[str, Checkpoint] = field(default_factory=dict)
    stream_views: list[str] = field(default_factory=list)
    stream_of: dict[str, tuple[tuple[tuple[str, ...], object], ...]] = field(default_factory=dict)
    not_applied: NotApplied = field(default_factory=NotApplied)

    def same_stream(self, one: str | None, other: str | None) -> bool:
        return (
            one is not None
            and other is not None
            and one in self.stream_of
            and self.stream_of[one] == (self.stream_of.get(other))
        )


def read_data_sources(root: Node, base: Path, timestamp_ms: int, stamp: bool, streaming: bool = False) -> DataSources:
    """Every data source of a job config; ``stamp`` adds Griffin's ``__tmst`` column; a
    ``streaming`` job reads Kafka connectors (streaming.py)."""
    entries = root.items("data.sources", required=True)
    if not entries:
        raise root.child("data.sources").error("BAD_CONFIG", "data.sources must list at least one data source")
    out = DataSources()
    aliases: list[tuple[Node, str]] = []
    # Griffin keeps the first data source of a name and puts the baseline first
    for entry in sorted(entries, key=lambda e: not (isinstance(e.value, dict) and e.flag("baseline", False))):
        if not isinstance(entry.value, dict):
            raise entry.error("BAD_CONFIG", f"{entry.where} must be an object with a name and a connector")
        check_keys(entry, "data source")
        name = entry.text("name", required=True)
        if not name.strip():
            raise entry.child("name").error("BAD_CONFIG", "a data source needs a non-empty name")
        if name in out.locations:
            continue
        out.locations[name] = entry
        out.names.append(name)
        if streaming:
            checkpoint = read_checkpoint(entry, out.not_applied)
            if checkpoint is not None:
                out.checkpoints[name] = checkpoint
            if not entry.has("connector") and not entry.has("connectors"):
                aliases.append((entry, name))  # Griffin's "new": another data source's cache
                continue
        _data_source(entry, name, base, timestamp_ms, stamp, out, streaming)
    for entry, name in aliases:
        _alias(entry, name, out)
    out.not_applied.report()
    return out


def _alias(entry: Node, name: str, out: DataSources) -> None:
    """A streaming data source without a connector: the batch of the one whose cache it shares."""
    cache = out.checkpoints[name].cache if name in out.checkpoints else None
    other = next((n for n, c in out.checkpoints.items() if n != name and cache and c.cache == cache), None)
    if other is None or other not in out.stream_of:
        raise entry.error(
            "BAD_CONFIG",
            f"data source {name!r} has no connector and shares no checkpoint file.path with a streaming data source",
            "give it a connector, or the file.path of the data source whose batches it reads",
        )
    out.views.append(ViewSpec(name, f"SELECT * FROM {quoted(other)}", entry.location))
    out.stream_views.append(name)
    out.stream_of[name] = out.stream_of[other]


def _data_source(
    entry: Node, name: str, base: Path, timestamp_ms: int, stamp: bool, out: DataSources, streaming: bool
) -> None:
    if entry.has("connector") or not entry.has("connectors"):
        connectors = [entry.obj("connector", required=True)]
    else:
        connectors = [c for c in entry.items("connectors")]
        if not connectors:
            raise entry.child("connectors").error("BAD_CONFIG", f"data source {name!r} lists no connector")
    kafka = streaming and all(_kind(c) == "kafka" for c in connectors)
    # a stream's rows keep their batch time: Griffin stamps them after its pre.proc steps
    stamp = stamp or (kafka and _prepares(connectors[0]))
    plain = len(connectors) == 1 and not _prepares(connectors[0]) and not stamp
    frames, raws = [], []
    for index, connector in enumerate(connectors):
        if not isinstance(connector.value, dict):
            raise connector.error("BAD_CONFIG", f"{connector.where} must be an object")
        check_keys(connector, "connector")
        raw = name if plain else f"{name}__raw{index if len(connectors) > 1 else ''}"
        if kafka:
            out.sources[raw] = kafka_source(connector, raw, name, out.not_applied)
        else:
            out.sources[raw] = replace(_connector(connector, raw, name, base), location=connector.location)
        raws.append(out.sources[raw])
        frames.append(_prepared(connector, raw, timestamp_ms, out.views))
    if kafka:  # the stream it reads: its brokers and topics
        out.stream_of[name] = tuple((spec.paths, spec.option("topics")) for spec in raws)
        if not plain:
            out.stream_views.append(name)
    if plain:
        return
    current = frames[0]
    if len(frames) > 1:
        current = f"{name}__union"
        out.views.append(ViewSpec(current, "", entry.location, union_of=tuple(frames)))
    if stamp:
        stamped = f"{name}__tmst"
        out.views.append(ViewSpec(stamped, "", entry.location, stamp_of=current))
        current = stamped
    out.views.append(ViewSpec(name, f"SELECT * FROM {quoted(current)}", entry.location))


def _prepares(connector: Node) -> bool:
    return bool(connector.items("pre.proc")) or bool(connector.obj("config").text("where", ""))


# --- one connector ----------------------------------------------------------------------------


def _kind(connector: Node) -> str:
    return (connector.text("type", "") or "").strip().lower() if isinstance(connector.value, dict) else ""


def _connector(connector: Node, raw: str, name: str, base: Path) -> SourceSpec:
    kind = (connector.text("type", required=True) or "").strip().lower()
    config = connector.obj("config")
    if f"{kind} config" in KNOWN_KEYS:
        check_keys(config, f"{kind} config")
    if kind == "file":
        return _file(config, raw, name, base)
    if kind == "avro":
        return _avro(config, raw, name, base)
    if kind == "text-dir":
        return _text_dir(config, raw, name, base)
    if kind == "hive":
        # always qualified, as Griffin reads it: a view named after the data source must not
        # shadow the table it reads
        table = config.text("table.name", required=True)
        return SourceSpec(raw, "table", table=f"{config.text('database', 'default')}.{table}")
    node = connector.child("type")
    if kind in ELSEWHERE:
        raise node.error(
            "UNSUPPORTED",
            f"data source {name!r}: Griffin's {kind} connector reads {ELSEWHERE[kind]}, which gryph does not reach",
            "export the data to files or a table and read them with a file or hive connector",
        )
    if kind == "jdbc":
        return _jdbc(config, raw, name, base)
    raise node.unknown_value(("file", "hive", "avro", "text-dir", "jdbc"), "connector type")


def _file(config: Node, raw: str, name: str, base: Path) -> SourceSpec:
    format_node = config.child("format")
    fmt = (config.text("format", "parquet") or "").strip().lower()
    if fmt not in FILE_FORMATS:
        raise format_node.unknown_value(tuple(FILE_FORMATS), "file format")
    fmt = FILE_FORMATS[fmt]
    written = _paths(config, "paths", name)
    paths = tuple(_resolve(base, path) for path in written)
    options = _options(config.obj("options"))
    schema = None
    if config.has("schema"):
        schema = _schema(config, name)
    if fmt == "csv" and not any(key.lower() == "header" for key, _ in options) and schema is None:
        raise config.error(
            "BAD_CONFIG",
            f"data source {name!r}: a csv connector needs options.header or a schema (Griffin requires one)",
            '"options": {"header": "true"}, or "schema": [{"name": ..., "type": ...}]',
        )
    if source_kind(fmt).text and not any(key.lower() == "header" for key, _ in options):
        options = (*options, ("header", "false"))  # Spark's default: the first line is data
    paths = _existing(paths, written, config.flag("skipErrorPaths", False), name, config)
    return SourceSpec(raw, fmt, paths=paths, options=options, schema=schema, written=", ".join(written))


def _jdbc(config: Node, raw: str, name: str, base: Path) -> SourceSpec:
    """Griffin's jdbc connector (``url``, ``user``, ``password``, ``database``, ``tablename``) as a
    PostgreSQL, MySQL or SQLite source; its ``where`` becomes a view like any connector's."""
    url = config.text("url", required=True) or ""
    table = config.text("tablename", required=True) or ""
    database = config.text("database", "")
    options = (("table", f"{database}.{table}" if database else table),)
    if url.startswith("jdbc:sqlite:"):
        database_file = url.removeprefix("jdbc:sqlite:")
        spec = SourceSpec(raw, "sqlite", paths=(_resolve(base, database_file),), options=options, written=url)
    elif url.startswith(("jdbc:postgresql:", "jdbc:mysql:")):
        parts = urlsplit(url.removeprefix("jdbc:"))
        user, password = config.text("user", ""), config.text("password", "")
        login = quote(user or "", safe="") + (":" + quote(password, safe="") if password else "") + "@" if user else ""
        fmt = "mysql" if parts.scheme == "mysql" else "postgres"
        spec = SourceSpec(raw, fmt, paths=(urlunsplit(parts._replace(netloc=login + parts.netloc)),), options=options)
    else:
        raise config.child("url").error(
            "UNSUPPORTED",
            f"data source {name!r}: gryph reads jdbc connectors of PostgreSQL (jdbc:postgresql://...), "
            "MySQL/MariaDB (jdbc:mysql://...) and SQLite (jdbc:sqlite:...)",
            "export the table to parquet and use a file connector",
        )
    check_database_source(spec)
    return spec


def _avro(config: Node, raw: str, name: str, base: Path) -> SourceSpec:
    """Griffin's deprecated avro connector: ``file.path`` (a folder or file), ``file.name``, or both."""
    folder = config.text("file.path", "") or ""
    file_name = config.text("file.name", "") or ""
    if not folder and not file_name:
        raise config.error("BAD_CONFIG", f"avro connector of {name!r} needs file.path or file.name")
    joined = str(Path(folder) / file_name) if folder and file_name else folder or file_name
    return SourceSpec(raw, "avro", paths=(_resolve(base, joined),), written=joined)


def _text_dir(config: Node, raw: str, name: str, base: Path) -> SourceSpec:
    """Griffin's deprecated text-dir connector: the text files ``data.dir.depth`` folders down."""
    folder = config.text("dir.path", required=True)
    depth = config.number("data.dir.depth", 0)
    if depth < 0 or depth != int(depth) or depth > 32:
        raise config.child("data.dir.depth").error("BAD_CONFIG", "data.dir.depth must be a whole number 0..32")
    pattern = str(Path(folder, *(["*"] * int(depth)))) if depth else folder
    return SourceSpec(raw, "text", paths=(_resolve(base, pattern),), written=folder)


def _paths(config: Node, key: str, name: str) -> tuple[str, ...]:
    """The paths of ``key`` as the config writes them."""
    node = config.child(key)
    if isinstance(node.value, str):
        values = [node]
    else:
        values = config.items(key)
    if not values:
        raise config.error("BAD_CONFIG", f"file connector of {name!r} needs paths", '"paths": ["data/x.csv"]')
    out = []
    for value in values:
        if not isinstance(value.value, str) or not value.value.strip():
            raise value.error("BAD_CONFIG", f"{value.where} must be a path (a non-empty string)")
        out.append(value.value)
    return tuple(out)


def _existing(
    paths: tuple[str, ...], written: tuple[str, ...], skip_errors: bool, name: str, config: Node
) -> tuple[str, ...]:
    """With ``skipErrorPaths``, paths that do not exist are left out (Griffin logs and skips them);
    ``written``: the paths as the config writes them."""
    if not skip_errors:
        return paths
    kept = tuple(p for p in paths if "://" in p or (glob.has_magic(p) and glob.glob(p)) or os.path.exists(p))
    for path in paths:
        if path not in kept:
            warnings.warn(f"data source {name!r}: path {path!r} does not exist; skipped (skipErrorPaths)", stacklevel=2)
    if not kept:
        raise EngineError(
            "SOURCE_NOT_FOUND",
            f"data source {name!r}: none of its paths exists ({', '.join(paths)})",
            location=config.location,
            text=", ".join(written),
        )
    return kept


def _options(options: Node) -> tuple[tuple[str, object], ...]:
    pairs = []
    for key in options.keys():
        value = options.child(key)
        if isinstance(value.value, (dict, list)):
            raise value.error("BAD_CONFIG", f"{value.where} must be a string, number or boolean")
        pairs.append((key, options.text(key)))
    return tuple(pairs)


def _schema(config: Node, name: str) -> Schema:
    pairs = []
    for column in config.items("schema"):
        if not isinstance(column.value, dict):
            raise column.error("BAD_CONFIG", f"{column.where} must be an object with a name and a type")
        # Griffin lower-cases both (FileBasedDataConnector.getUserDefinedSchema)
        pairs.append(
            ((column.text("name", required=True) or "").lower(), (column.text("type", required=True) or "").lower())
        )
    if not pairs:
        raise config.child("schema").error("BAD_CONFIG", f"data source {name!r}: the schema lists no column")
    return parse_schema_columns(pairs, config.child("schema").location)


def _resolve(base: Path, path: str) -> str:
    if "://" in path or Path(path).is_absolute():
        return path
    return str(base.resolve() / path)


# --- where filters and pre.proc ---------------------------------------------------------------


def _prepared(connector: Node, raw: str, timestamp_ms: int, views: list[ViewSpec]) -> str:
    """The connector's frame after its ``where`` filter and ``pre.proc`` steps (a view name)."""
    current = raw
    where_node = connector.obj("config").child("where")
    where = connector.obj("config").text("where", "") or ""
    parts = [p.strip() for p in fill_time_patterns(where, timestamp_ms).split(",") if p.strip()]
    if parts:
        for part in parts:
            check_condition(part, where_node)
        current = f"{raw}__where"
        # Griffin's HiveBatchDataConnector: one SELECT per comma-separated filter, UNION ALL
        views.append(
            ViewSpec(
                current,
                " UNION ALL ".join(f"SELECT * FROM {quoted(raw)} WHERE {p}" for p in parts),
                where_node.location,
            )
        )
    this = connector.text("dataframe.name", "this") or "this"
    frames = {this: current}
    for index, step in enumerate(connector.items("pre.proc")):
        output = f"{raw}__step{index}"
        if isinstance(step.value, str):
            views.append(_sql_step(step, step.value, output, frames))
            frames[this] = output
            continue
        if not isinstance(step.value, dict):
            raise step.error("BAD_CONFIG", f"{step.where} must be Spark SQL text or a rule object")
        check_keys(step, "pre.proc")
        dsl = (step.text("dsl.type", "spark-sql") or "").lower().replace("-", "")
        if is_df_ops(dsl):
            # the operation reads a frame by name: the ones this connector's steps have made so far
            view = from_json_view(step, output, this)
            assert view.json_of is not None  # a from_json view
            views.append(replace(view, json_of=(frames.get(view.json_of[0], view.json_of[0]), view.json_of[1])))
        elif dsl == "sparksql":
            views.append(_sql_step(step.child("rule"), step.text("rule", required=True), output, frames))
        else:
            raise step.child("dsl.type").unknown_value(("spark-sql", "df-ops"), "pre.proc dsl.type")
        frames[step.text("out.dataframe.name", this) or this] = output
    return frames[this]


def _sql_step(node: Node, text: str, output: str, frames: dict[str, str]) -> ViewSpec:
    if not text.strip():
        raise node.error("BAD_CONFIG", "a pre.proc step has no SQL")
    return ViewSpec(output, with_frames(text, frames), node.location)
