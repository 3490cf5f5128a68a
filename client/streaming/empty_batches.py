"""A stream source with nothing in this batch, while another has rows: a frame of its columns and
no rows, so the batch's rules still read it (and count 0).

The frame holds no types of an engine: its columns are Arrow's null type, and the spec declares
the source's schema, which every engine casts a frame's columns to (as a ``table`` or ``frame``
source with a declared schema is read), so a stream on Spark needs no DuckDB here.
"""

from __future__ import annotations

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import value_schema


def empty_frame(spec: SourceSpec, tmst: int) -> SourceSpec:
    """An in-memory source of ``spec``'s declared columns and no rows, stamped ``tmst``."""
    import pyarrow as pa

    schema = value_schema(spec)
    frame = pa.table({column.name: pa.nulls(0) for column in schema.columns})
    return SourceSpec(spec.name, "frame", frame=frame, schema=schema, location=spec.location, stamp=tmst)
