"""A source's local files checked before an engine reads them, so both engines refuse the same
inputs with the same error: a pipe or device (reading would wait for a writer forever), a folder
without data files, a text source whose files are all empty, a binary file given as text.

Paths that do not exist here (URLs, a remote Spark server's own files) are left to the engine.
"""

from __future__ import annotations

import glob
import os
import stat
from urllib.parse import urlsplit
from urllib.request import url2pathname

from ..errors import EngineError, Location, with_article
from ..source_kinds import Marks
from .source_specs import SourceSpec

_GLOB_CHARS = set("*?[")
_PEEK_BYTES = 8192  # enough to tell text from binary, as file(1) and git do
DAMAGED = "the file is damaged, cut short while written, or of another format: write it again"


def local_path(location: str) -> str:
    """A path given as itself or as a ``file:`` URL (as Iceberg writes locations and Spark names files)."""
    parts = urlsplit(location)
    return url2pathname(parts.path) if parts.scheme == "file" else location


def check_local_files(spec: SourceSpec) -> None:
    """Refuse, with an ``EngineError`` naming the file, what no engine can read as ``spec``'s data."""
    files = [f for path in spec.paths if "://" not in path for f in local_files(spec, path)]
    marks = spec.kind.marks
    if marks is not None:
        for file in files:
            _check_marks(spec, file, marks)
    if spec.kind.footers and len(files) > 1:  # one file's footer is read by its engine first
        from .parquet_footers import check_parquet_files  # which imports this module's local_path

        check_parquet_files(spec, files)
    if not spec.kind.text_values or not files:  # text files: csv, tsv, json
        return
    if spec.kind.text and len(files) > 1:  # lines of delimited text, under a header line
        _check_same_header(spec, files)
    if all(os.path.getsize(f) == 0 for f in files):
        shown = files[0] if len(files) == 1 else f"all {len(files)} files of {', '.join(spec.paths)}"
        raise _refused(
            spec,
            "SOURCE_EMPTY",
            shown,
            "is empty: no header, no rows",
            f"{with_article(spec.format)} file needs at least a header line" if spec.kind.text else None,
        )
    for file in files:
        if b"\0" in _peek(spec, file):
            raise _refused(
                spec,
                "SOURCE_NOT_TEXT",
                file,
                f"is not {spec.format} text (it holds NUL bytes)",
                "is it the right file? text must be UTF-8",
            )


def local_files(spec: SourceSpec, path: str) -> list[str]:
    """The data files ``path`` names here: itself, a glob's matches, a folder's part files (none
    when nothing is there); a pipe or device is refused."""
    matches = sorted(glob.glob(path, recursive=True)) if _GLOB_CHARS & set(path) else [path]
    files = []
    for match in matches:
        kind = _mode(spec, match)
        if kind is None:
            continue
        if stat.S_ISDIR(kind):
            files += _folder_files(spec, match)
        elif stat.S_ISREG(kind):
            files.append(match)
        else:
            raise _refused(
                spec,
                "SOURCE_NOT_A_FILE",
                match,
                "is not a regular file (a pipe, socket or device)",
                "give a file or a folder of files",
            )
    return files


def _folder_files(spec: SourceSpec, folder: str) -> list[str]:
    # Spark and Hadoop write _SUCCESS markers and .crc checksums beside the part files
    try:
        names = sorted(n for n in os.listdir(folder) if not n.startswith(("_", ".")))
    except OSError as error:
        raise _refused(spec, "SOURCE_UNREADABLE", folder, f"cannot be listed: {error.strerror}", None) from None
    files = []
    for name in names:
        path = os.path.join(folder, name)
        kind = _mode(spec, path)
        if kind is not None and stat.S_ISREG(kind):
            files.append(path)
        elif kind is not None and not stat.S_ISDIR(kind):  # partition folders are the engine's to read
            raise _refused(
                spec,
                "SOURCE_NOT_A_FILE",
                path,
                "is not a regular file (a pipe, socket or device)",
                "give a file or a folder of files",
            )
    if not names:
        raise _refused(
            spec,
            "SOURCE_EMPTY",
            folder,
            "is a folder without data files",
            "a folder source is read as Spark writes one: its part files",
        )
    return files


def _mode(spec: SourceSpec, path: str) -> int | None:
    """The file type bits of ``path`` (links followed), or None when it is not here."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in the name
        return None
    except OSError as error:
        raise _refused(spec, "SOURCE_UNREADABLE", path, f"cannot be read: {error.strerror}", None) from None


def _peek(spec: SourceSpec, file: str) -> bytes:
    try:
        with open(file, "rb") as handle:
            return handle.read(_PEEK_BYTES)
    except OSError as error:
        raise _refused(spec, "SOURCE_UNREADABLE", file, f"cannot be read: {error.strerror}", None) from None


# the marks a file of each binary format starts (and, for parquet, ends) with: a file without them
# is damaged, cut short or of another format, which each engine would say in words of its own
def _check_marks(spec: SourceSpec, file: str, declared: Marks) -> None:
    head, tail, marks = declared.head, declared.tail, declared.named
    try:
        with open(file, "rb") as handle:
            start = handle.read(len(head))
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(size - len(tail), 0))
            end = handle.read(len(tail)) if tail else b""
    except OSError as error:
        raise _refused(spec, "SOURCE_UNREADABLE", file, f"cannot be read: {error.strerror}", None) from None
    if start != head or end != tail or size < len(head) + len(tail):
        raise _unreadable(
            spec,
            f"{file} is not {with_article(spec.format)} file: it lacks {marks}",
            DAMAGED,
        )


def _check_same_header(spec: SourceSpec, files: list[str]) -> None:
    """The files of one csv source must have the same header line: the engines read a folder by
    its first file's (DuckDB refuses another in words that may name the wrong file; Spark places
    the others' columns by position, and a header written otherwise, `"id","name"` for `id,name`,
    becomes a row of data)."""
    if str(spec.option("header", True)).strip().lower() in ("false", "0", "no"):
        return
    files = [file for file in files if os.path.getsize(file) > 0]  # an empty file has no header to differ
    first = _header_line(spec, files[0]) if files else ""
    for file in files[1:]:
        line = _header_line(spec, file)
        if line != first:
            raise _unreadable(
                spec,
                f"{file} has the header {line} but {files[0]} has {first}",
                "the files of one source need the same header line: move the other files to a source of their own",
            )


def _header_line(spec: SourceSpec, file: str) -> str:
    """A csv file's first line, without its byte-order mark and line break."""
    return _peek(spec, file).split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8-sig", errors="replace")


def _unreadable(spec: SourceSpec, reason: str, hint: str) -> EngineError:
    """``SOURCE_UNREADABLE`` in the words both engines use for a file they fail to read."""
    from .unreadable_files import unreadable_source  # which imports this module's local_path

    return unreadable_source(spec, reason, hint)


def _refused(spec: SourceSpec, code: str, path: str, problem: str, hint: str | None) -> EngineError:
    """``code`` for ``path`` of ``spec``, named in the message as read; the source as declared is quoted."""
    return EngineError(
        code,
        f"source {spec.name!r}: {path} {problem}",
        location=Location(file=path),
        text=spec.as_written(),
        hint=hint,
    )
