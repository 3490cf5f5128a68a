"""MySQL and MariaDB on DuckDB: connectorx's Arrow stream behind the few DB-API calls
database_sources.py makes of an ADBC connection (``cursor``, ``execute``, ``fetch_record_batch``).

connectorx was measured against mysql-connector-python (benchmarks/README.md): about ten times
faster, and its stream holds one batch at a time. It opens a connection per query and binds no
parameters, so filters reach it as literals (database_filters.py). Its connection pool waits 30
seconds for a login the server refuses; a server out of reach is found first, within the
source's connect timeout, by opening a socket to it. A statement that fails while it streams (its
``statement_timeout``) makes connectorx panic: its calls run with the panic's text kept off the
terminal (native_stderr.py), gryph reporting the error from the exception.
"""

from __future__ import annotations

import importlib
import os
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pyarrow as pa

from gryph.compiler.sources.databases import Database

from .native_stderr import panics_held

BATCH_ROWS = 65_536


def load_connectorx():
    """The connectorx module, its Rust logger silenced: its pool logs every failed connection
    attempt to stderr, and gryph reports the failure itself, once."""
    os.environ.setdefault("RUST_LOG", "off")
    return importlib.import_module("connectorx")


class MysqlConnection:
    """Queries of one MySQL source, each streamed by connectorx in its own read-only session."""

    def __init__(self, database: Database) -> None:
        self._cx = load_connectorx()
        self._database = database
        parts = urlsplit(database.url)
        # the server out of reach fails now, in the connect timeout, not after the pool's 30 s
        address = (parts.hostname or "localhost", parts.port or 3306)
        socket.create_connection(address, timeout=database.connect_timeout_ms / 1000).close()

    def cursor(self) -> _Cursor:
        return _Cursor(self)

    def stream(self, sql: str) -> pa.RecordBatchReader:
        with panics_held():
            reader = self._cx.read_sql(
                self._database.mysql_uri(),
                sql,
                return_type="arrow_stream",
                batch_size=BATCH_ROWS,
                pre_execution_query=list(self._database.mysql_session()),
            )
        return pa.RecordBatchReader.from_batches(reader.schema, _held_batches(reader))

    def close(self) -> None:
        """Nothing held open: each query's connection closes with its stream."""


def _held_batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """``reader``'s batches, each pulled (where the query runs on, and may fail) with panics held."""
    try:
        while True:
            with panics_held():
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
            yield batch
    finally:
        reader.close()


class _Cursor:
    def __init__(self, connection: MysqlConnection) -> None:
        self._connection = connection
        self._reader: pa.RecordBatchReader | None = None

    def execute(self, sql: str, parameters: tuple | None = None) -> None:
        assert not parameters, "connectorx binds no parameters: filters reach MySQL as literals"
        self._reader = self._connection.stream(sql)

    def fetch_record_batch(self) -> pa.RecordBatchReader:
        assert self._reader is not None, "execute first"
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
