"""In-memory tables (Arrow, Polars, pandas) as the Arrow tables every engine loads."""

from __future__ import annotations

from typing import Any


def frame_to_arrow(frame: Any) -> Any:  # -> pyarrow.Table; pyarrow loads only when a frame is used
    """An Arrow table for an Arrow table or record batch, a Polars DataFrame or LazyFrame, or a
    pandas DataFrame (its index left out); ``TypeError`` for anything else."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        return pa.Table.from_pandas(frame, preserve_index=False)
    if module == "polars" and hasattr(frame, "collect"):  # a LazyFrame
        frame = frame.collect()
    # record batches and Polars frames speak the Arrow stream protocol
    return pa.table(frame)
