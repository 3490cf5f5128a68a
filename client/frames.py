"""In-memory tables from Polars, pandas or Arrow, as the Arrow table engines load."""

from __future__ import annotations

import pyarrow as pa

from gryph.compiler.errors import InvalidInput


def to_arrow(frame: object) -> pa.Table:
    """An Arrow table for a Polars, pandas or Arrow frame."""
    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    module = type(frame).__module__.split(".")[0]
    if module == "polars":
        return frame.to_arrow()
    if module == "pandas":
        return pa.Table.from_pandas(frame, preserve_index=False)
    raise InvalidInput(
        "BAD_FRAME",
        f"cannot read a {type(frame).__name__} as a table",
        text=None,
        hint="pass a Polars, pandas or Arrow table",
    )
