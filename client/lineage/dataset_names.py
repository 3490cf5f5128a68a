"""A source as an OpenLineage dataset: its namespace and name by OpenLineage's naming conventions
(postgres://host:port + db.schema.table, mysql://host:port + db.table, file + path, s3://bucket +
key, kafka://host:port + topic, inmemory:// + name). The way is chosen by the source's declared
family (compiler/source_kinds.py) and, for databases, its kind; never a credential: a URL's user
and password are not part of a name."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from gryph.compiler.source_kinds import SourceKind
from gryph.compiler.sources.lake_tables import catalog_properties, iceberg_is_path
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import topics
from gryph.compiler.sources.table_names import split_qualified


@dataclass(frozen=True)
class DatasetName:
    namespace: str
    name: str


def dataset_name(spec: SourceSpec, engine: str) -> DatasetName:
    """The dataset ``spec`` reads, named as OpenLineage consumers expect it."""
    if spec.kind.family == "database":
        return _DATABASES[spec.kind.kind](spec)
    return _FAMILIES[spec.kind.family](spec, engine)


def location_name(where: str) -> DatasetName:
    """A file, folder or table location: ``file`` and its absolute path, or a URL's scheme and
    authority (``s3://bucket``) and its path (the object key, without its leading slash)."""
    parts = urlsplit(where)
    if len(parts.scheme) > 1 and parts.netloc:  # not a Windows drive letter
        host = parts.hostname or ""
        authority = host + (f":{parts.port}" if parts.port else "")
        return DatasetName(f"{parts.scheme}://{authority}", parts.path.lstrip("/") or "/")
    return DatasetName("file", os.path.abspath(where))


def _files(spec: SourceSpec, _engine: str) -> DatasetName:
    # several paths are one dataset: the folder they share
    where = spec.paths[0] if len(spec.paths) == 1 else os.path.commonpath(spec.paths)
    return location_name(where)


def _stream(spec: SourceSpec, engine: str) -> DatasetName:
    if spec.kind.kind is SourceKind.KAFKA:
        host, _, port = spec.paths[0].split(",")[0].strip().rpartition(":")
        return DatasetName(f"kafka://{host}:{port}", ",".join(topics(spec)))
    return _files(spec, engine)  # a folder the stream lists


def _lake(spec: SourceSpec, engine: str) -> DatasetName:
    if spec.kind.kind is SourceKind.ICEBERG and not iceberg_is_path(spec):
        # a catalog's table: the catalog's warehouse (or URI) names where it lives
        properties = catalog_properties(spec)
        where = properties.get("warehouse") or properties.get("uri")
        namespace = location_name(where).namespace if where else "iceberg"
        return DatasetName(namespace, spec.paths[0])
    return _files(spec, engine)


def _catalog(spec: SourceSpec, engine: str) -> DatasetName:
    return DatasetName(engine, spec.table_name)


def _memory(spec: SourceSpec, _engine: str) -> DatasetName:
    return DatasetName("inmemory://", spec.name)


def _networked(scheme: str, default_port: int, parts_of: Callable[[str, list[str]], str]):
    """A database on a server: ``scheme://host:port`` and the table named from its database."""

    def name(spec: SourceSpec) -> DatasetName:
        url = urlsplit(spec.paths[0])
        host = url.hostname or "localhost"
        host = f"[{host}]" if ":" in host else host
        database = url.path.lstrip("/")
        table = spec.option("table")
        # a query's rows are of the database: it is the dataset that is read
        qualified = parts_of(database, split_qualified(str(table))) if table else database
        return DatasetName(f"{scheme}://{host}:{url.port or default_port}", qualified)

    return name


def _sqlite(spec: SourceSpec) -> DatasetName:
    table = spec.option("table")
    path = os.path.abspath(spec.paths[0])
    return DatasetName("sqlite", f"{path}.{table}" if table else path)


_DATABASES: dict[SourceKind, Callable[[SourceSpec], DatasetName]] = {
    # db.schema.table, the schema public unless the table names one
    SourceKind.POSTGRES: _networked("postgres", 5432, lambda db, parts: ".".join([db, *["public", *parts][-2:]])),
    # db.table, the database the URL's unless the table names one
    SourceKind.MYSQL: _networked("mysql", 3306, lambda db, parts: ".".join([db, *parts][-2:])),
    SourceKind.SQLITE: _sqlite,
}
_FAMILIES: dict[str, Callable[[SourceSpec, str], DatasetName]] = {
    "file": _files,
    "stream": _stream,
    "lake": _lake,
    "catalog": _catalog,
    "memory": _memory,
}
