"""A parquet file damaged inside, found after a query failed: what its footers say
(compiler/sources/parquet_footers.py), else the file whose data pages do not decode.

A damaged page shows only when a query decodes it, and DuckDB's error then names neither the file nor the source
("Variable-length int over 10 bytes."). Each file of the run's parquet sources is read in full,
in batches, until one fails: that file is the source's error, not the query's.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.parquet_footers import footer_error
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.unreadable_files import damaged_file

from ..sql.quoting import string
from .source_views import expand_paths, read_parquet_sql

_BATCH = 65536  # rows held at once while a file is read through
# what a file that does not decode raises; a query's own errors (a conversion, a binder or
# catalog error, a cancel, memory) are other subclasses of duckdb.Error and read no file again
_READ_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.InternalException)


def damaged_parquet(
    con: duckdb.DuckDBPyConnection, exc: duckdb.Error, specs: Iterable[SourceSpec]
) -> EngineError | None:
    """The ``SOURCE_UNREADABLE`` of the first local parquet file of ``specs`` that fails to read
    in full, when ``exc`` may be a read's failure; None when every file reads."""
    if type(exc) is not duckdb.Error and not isinstance(exc, _READ_ERRORS):
        return None
    for spec in specs:
        if not spec.kind.footers:  # a parquet file: what its footers say of its pages
            continue
        footers = footer_error(spec)
        if footers is not None:
            return footers
        for file in expand_paths(spec):
            if "://" in file:
                continue
            try:
                cursor = con.execute(f"SELECT * FROM {read_parquet_sql(con, f'[{string(file)}]')}")
                while cursor.fetchmany(_BATCH):
                    pass
            except duckdb.Error as error:
                return damaged_file(spec, file, _reason(error))
    return None


def _reason(error: duckdb.Error) -> str:
    """DuckDB's first line, which says what did not decode (what follows shows the statement)."""
    return str(error).strip().splitlines()[0].rstrip(".")
