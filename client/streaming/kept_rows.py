"""The views a stream's batch reads beside its own rows: rows earlier batches left on the
engine's side (parquet files), those at least as recent as a cutoff batch time.

The SQL is made here from the stream's own column names (quoted) and integer times only:
nothing a user wrote is pasted into it."""

from __future__ import annotations

from gryph.compiler.plan.spark_names import quoted
from gryph.compiler.sources.stream_sources import TMST


def rows_since(columns: tuple[str, ...], table: str, cutoff: int) -> str:
    """``table``'s rows whose ``__tmst`` is at least ``cutoff``, over ``columns`` in order."""
    return f"SELECT {_listed(columns)} FROM {quoted(table)} WHERE {quoted(TMST)} >= {int(cutoff)}"


def batch_and_rows_since(columns: tuple[str, ...], batch: str, table: str, cutoff: int) -> str:
    """The batch's rows, then ``rows_since(table, cutoff)``."""
    return f"SELECT {_listed(columns)} FROM {quoted(batch)} UNION ALL {rows_since(columns, table, cutoff)}"


def _listed(columns: tuple[str, ...]) -> str:
    return ", ".join(quoted(c) for c in columns)
