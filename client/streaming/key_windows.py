"""Where a stream keeps the rows of its batches that later batches' windows read (``uniqueness
... with window``, ``distinctness ... with window``, ``accuracy ... with lookback``: which rules
read them, and how, is the compiler's, compiler/suites/kept_rows.py). Those rows stay where the
engine runs: a parquet file per batch, written by the batch's own plan.
"""

from __future__ import annotations

from pathlib import Path

from gryph.compiler.safe_names import safe_file_name


def rows_file(kept: str, name: str, number: int) -> str:
    """Where batch ``number`` leaves the rows of ``name`` (on the engine's side, under ``kept``)."""
    return f"{kept}/rows/{safe_file_name(name)}/batch-{number}.parquet"


def batch_number(path: Path) -> int:
    """The batch number in a kept file's or folder's name (``batch-12``, ``batch-12.parquet``); -1 for any other."""
    digits = path.name.removeprefix("batch-").removesuffix(".parquet")
    return int(digits) if digits.isdigit() else -1
