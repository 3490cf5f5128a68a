"""A contract's server as the source statement of one of its schema objects.

Credentials come from the environment only, under datacontract-cli's names
(``DATACONTRACT_POSTGRES_USERNAME``/``_PASSWORD``, ``DATACONTRACT_MYSQL_...``), and are never printed.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..source_kinds import SourceKind, source_kind
from .quality_rules import Unsupported
from .yaml_document import YamlMap

_FILE_TYPES = ("local", "s3", "gcs", "azure", "file")
_FORMATS = {"csv": "csv", "parquet": "parquet", "json": "json", "delta": "delta", "iceberg": "iceberg",
            "avro": "avro", "orc": "orc"}  # fmt: skip  # avro, orc: what an exported Griffin config reads


def _string(value: object) -> str:
    """A DSL string literal (double-quoted, backslash escapes)."""
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


# an ODCS server type of a database: the gryph source kind reading it, and the port it listens on unless told
_DATABASE_SERVERS = {
    "postgres": (source_kind(SourceKind.POSTGRES), 5432),
    "postgresql": (source_kind(SourceKind.POSTGRES), 5432),
    "mysql": (source_kind(SourceKind.MYSQL), 3306),
}


def source_statement(server: YamlMap, obj: YamlMap, name: str) -> str:
    """``source NAME = ...`` reading schema object ``obj`` from ``server``."""
    kind = str(server.get("type", "")).lower()
    table = str(obj.get("physicalName") or obj.get("name"))
    if kind in _FILE_TYPES:
        return f"source {name} = {_file_source(server, table)}"
    if kind in _DATABASE_SERVERS:
        database, default_port = _DATABASE_SERVERS[kind]
        where = f"{server.get('host', 'localhost')}:{server.get('port', default_port)}/{server.get('database', '')}"
        url = f"{database.url_schemes[0]}://{where}"
        qualified = f"{server['schema']}.{table}" if server.get("schema") else table
        env = f"DATACONTRACT_{database.kind.value.upper()}"  # datacontract-cli's credential variables
        return (
            f"source {name} = {database.kind}({_string(url)}, table = {_string(qualified)}, "
            f'user_env = "{env}_USERNAME", password_env = "{env}_PASSWORD")'
        )
    if kind == "duckdb":  # a table of the DuckDB file the engine opens (duckdb_database), its catalog named
        catalog = Path(str(server["database"])).stem  # as DuckDB names an opened file: a schema may share it
        return f"source {name} = table({_string(_dotted(catalog, server.get('schema') or 'main', table))})"
    if kind == "databricks":  # a table of the Spark engine's catalog, through Spark Connect
        return f"source {name} = table({_string(_dotted(server['catalog'], server['schema'], table))})"
    raise Unsupported(
        f"servers of type {kind!r} are not read by gryph (postgres, mysql, duckdb, databricks, "
        "files of type local, s3, gcs or azure)"
    )


def duckdb_database(server: YamlMap, folder: Path) -> Path | None:
    """The DuckDB file a ``duckdb`` server names (relative to the contract's folder); None for other servers."""
    if str(server.get("type", "")).lower() != "duckdb":
        return None
    return folder / str(server["database"])


def _dotted(*parts: object) -> str:
    """A catalog table's name, each part double-quoted unless it is a plain identifier."""
    return ".".join(
        str(part) if re.fullmatch(r"[A-Za-z_]\w*", str(part)) else '"' + str(part).replace('"', '""') + '"'
        for part in parts
    )


def _file_source(server: YamlMap, table: str) -> str:
    form = str(server.get("format", "")).lower()
    if form not in _FORMATS:
        raise Unsupported(f"a file server needs format one of {', '.join(_FORMATS)} (it has {form!r})")
    path = str(server.get("path") or server.get("location") or "").replace("{model}", table).replace("{object}", table)
    if not path:
        raise Unsupported("a file server needs a path")
    options = ""
    if form == "csv" and server.get("delimiter"):
        options = f", delimiter = {_string(server['delimiter'])}"
    return f"{_FORMATS[form]}({_string(path)}{options})"
