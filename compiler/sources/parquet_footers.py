"""A parquet source's files checked by their footers: before an engine reads several (a folder,
a glob), after it failed to read one.

Each engine fails on a damaged footer, a file cut short inside its column chunks, or a folder
whose files disagree on a column, in words of its own, at a statement of its own, or not at all
(DuckDB reads a column that is text in one file and numbers in another as text). The footers say
all of it: read here once while the files are unchanged, so both engines refuse the same files
with the same located error naming the source, the file and the column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import EngineError
from .local_files import DAMAGED, local_files
from .source_specs import SourceSpec
from .unchanged_files import while_unchanged
from .unreadable_files import damaged_file, unreadable_source

if TYPE_CHECKING:  # pyarrow loads only for runs that read parquet files here
    import pyarrow as pa


@dataclass(frozen=True)
class _Problem:
    """What is wrong with a source's files, said once the source is known."""

    file: str | None  # a damaged file, else a difference between files
    reason: str
    hint: str


def check_parquet_files(spec: SourceSpec, files: list[str]) -> None:
    """Refuse ``spec``'s ``files`` (local, each with its PAR1 marks) when a footer cannot be read,
    a column chunk runs past the data the file holds, or two files differ in a column."""
    error = _error(spec, files)
    if error is not None:
        raise error


def footer_error(spec: SourceSpec) -> EngineError | None:
    """After an engine failed to read ``spec``, what its footers say is wrong (None: nothing, or
    not a parquet source). A source of one file is checked only then: its engine's own reading
    of the footer comes first, and a run of sound files loads no parquet reader here."""
    if not spec.kind.footers:
        return None
    return _error(spec, [f for path in spec.paths if "://" not in path for f in local_files(spec, path)])


def _error(spec: SourceSpec, files: list[str]) -> EngineError | None:
    if not files:
        return None
    problem = while_unchanged("parquet footers", files, lambda: _problem(files))
    if problem is None:
        return None
    if problem.file is not None:
        return damaged_file(spec, problem.file, problem.reason, problem.hint)
    return unreadable_source(spec, problem.reason, problem.hint)


def _problem(files: list[str]) -> _Problem | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: list[dict[str, str]] = []
    for file in files:
        try:
            metadata = pq.read_metadata(file)
        except (OSError, pa.ArrowException) as error:
            return _Problem(file, f"its footer cannot be read ({_first_line(error)})", DAMAGED)
        cut = _cut_short(metadata, file)
        if cut is not None:
            return _Problem(file, f"its column {cut!r} runs past the end of its data (cut short)", DAMAGED)
        columns.append({field.name: _kind(field.type) for field in metadata.schema.to_arrow_schema()})
    for file, found in zip(files[1:], columns[1:], strict=True):
        difference = _difference(files[0], columns[0], file, found)
        if difference is not None:
            return _Problem(
                None,
                difference,
                "the files of one source need the same columns and types: move the other files to a source "
                "of their own, or write them again alike",
            )
    return None


def _cut_short(metadata: Any, file: str) -> str | None:
    """The first column whose chunk the footer places past the data before it."""
    footer_length = _footer_length(file)
    data_end = os.path.getsize(file) - footer_length - 8  # 4 bytes of length, 4 of PAR1
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            start = chunk.dictionary_page_offset or chunk.data_page_offset
            if start + chunk.total_compressed_size > data_end:
                return str(chunk.path_in_schema)
    return None


def _footer_length(file: str) -> int:
    with open(file, "rb") as handle:
        handle.seek(-8, 2)
        return int.from_bytes(handle.read(4), "little")


def _kind(arrow_type: pa.DataType) -> str:
    """A column's type as its footer gives it (a large string is a string: the engines read both alike)."""
    import pyarrow as pa

    if pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type):
        return "string"
    return str(arrow_type)


def _difference(first: str, first_columns: dict[str, str], file: str, columns: dict[str, str]) -> str | None:
    """How ``file``'s columns differ from those of ``first``, the source's first file."""
    for name, kind in first_columns.items():
        if name not in columns:
            return f"{file} has no column {name!r}, which {first} has"
        if columns[name] != kind:
            return f"column {name!r} is {columns[name]} in {file} but {kind} in {first}"
    extra = next((name for name in columns if name not in first_columns), None)
    return None if extra is None else f"{file} has a column {extra!r} that {first} has not"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
