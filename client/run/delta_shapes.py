"""A Delta output that already holds a table, checked before any scan: gryph replaces a data
time's partition of a table partitioned by ``data_time`` whose columns are the source's and its
own (``_dq_errors`` and ``_dq_run`` in a quarantine), so a table of another shape is a located
QUARANTINE_TARGET up front, not a failed commit after the whole scan."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gryph.compiler.errors import InvalidInput, Location

PARTITION = "data_time"
BOOKKEEPING = {"quarantine": ("_dq_errors", "_dq_run", PARTITION), "valid": (PARTITION,)}


def check_delta_outputs(
    folders: Mapping[str, Mapping[str, Path]],
    delta: Mapping[str, frozenset[str]],
    columns: Mapping[str, tuple[str, ...] | None],
    location: Location,
) -> None:
    """Each existing Delta table among ``folders``' outputs (``delta``: per source, its Delta
    outputs) has gryph's partitioning and columns; ``columns`` names a source's columns where its
    schema is declared (None: only gryph's own columns are checked)."""
    for source, outs in delta.items():
        for output in sorted(outs):
            problem = _shape_problem(Path(folders[source][output]), output, columns.get(source))
            if problem is not None:
                path = str(folders[source][output])
                raise InvalidInput(
                    "QUARANTINE_TARGET",
                    f"{output} table {path!r} {problem}",
                    location=location,
                    text=path,
                    hint=f"name a new path (gryph makes the table), or a table gryph wrote for source {source!r}",
                )


def _shape_problem(table: Path, output: str, source_columns: tuple[str, ...] | None) -> str | None:
    if not (table / "_delta_log").is_dir():
        return None  # a new path: the first commit makes the table
    try:
        from deltalake import DeltaTable
    except ImportError:  # a Spark run's client without the delta extra: Spark's writer refuses it later
        return None
    try:
        found = DeltaTable(str(table))
    except Exception as error:  # delta-rs raises its own classes for a log it cannot read
        return f"is not a Delta table gryph can read: {error}"
    partitions = list(found.metadata().partition_columns)
    if partitions != [PARTITION]:
        return f"is partitioned by {partitions or 'nothing'}, not by [{PARTITION!r}]"
    names = {column.name for column in found.schema().fields}
    # the source's columns where its schema is declared (a stream adds its own): none may be missing
    wanted = (*(source_columns or ()), *BOOKKEEPING[output])
    missing = [name for name in wanted if name not in names]
    return f"has no column {', '.join(map(repr, missing))}" if missing else None
