"""A stream source with nothing in this batch, while another has rows: a table of its columns and
no rows, so the batch's rules still read it (and count 0)."""

from __future__ import annotations

import duckdb

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import value_schema
from gryph.local_backend.sources.duck_types import to_duckdb
from gryph.local_backend.sql.quoting import ident


def empty_frame(spec: SourceSpec, tmst: int) -> SourceSpec:
    """An in-memory source of ``spec``'s declared columns and no rows, stamped ``tmst``."""
    columns = ", ".join(f"CAST(NULL AS {to_duckdb(c.dtype)}) AS {ident(c.name)}" for c in value_schema(spec).columns)
    with duckdb.connect() as con:
        frame = con.sql(f"SELECT {columns} LIMIT 0").to_arrow_table()
    return SourceSpec(spec.name, "frame", frame=frame, location=spec.location, stamp=tmst)
