"""The lines of a CSV Spark skips, left out for DuckDB: comment lines and, in a file of one
column, empty lines.

Spark skips a line that starts with the comment character and keeps one after a value as text
(``1,a # note`` is ``a # note``); DuckDB's reader ends the line at a comment character anywhere
outside quotes (``a``), and cannot be told otherwise. Spark skips an empty line too; DuckDB does
in a file of several columns, but in a file of one column reads it as a row holding NULL (a
trailing empty line made one row more than Spark counts). A file whose comment characters all
start lines reads alike with DuckDB's own option, and one of several columns needs nothing for
its empty lines (the usual files: nothing is copied). Another is read from a copy without those
lines, made once while the file is unchanged and removed when the process ends: only such files
pay for it.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import partial

from gryph.compiler.sources.csv_dialects import CsvDialect
from gryph.compiler.sources.unchanged_files import while_unchanged

_CHUNK = 1 << 24
_copies: list[str] = []  # the folder copies are made in, once made


def without_skipped_lines(files: list[str], dialect: CsvDialect) -> list[str] | None:
    """The files DuckDB reads for ``files``: copies without the lines Spark skips where DuckDB would
    read them otherwise; None when DuckDB reads every file as Spark does (or a file is not local)."""
    if any("://" in f for f in files):
        return None
    found = [while_unchanged(f"lines Spark skips {dialect}", [f], partial(_skips_lines, f, dialect)) for f in files]
    if not any(found):
        return None
    return [
        while_unchanged(f"without skipped lines {dialect}", [f], partial(_copy, f, dialect)) if skips else f
        for f, skips in zip(files, found, strict=True)
    ]


def _skips_lines(path: str, dialect: CsvDialect) -> bool:
    """Whether ``path`` holds a line Spark skips that DuckDB would read: a comment character after
    a value, or an empty line in a file of one column."""
    if dialect.comment and _after_a_value(path, dialect.comment.encode(dialect.encoding)):
        return True
    return _one_column(path, dialect) and _has_empty_line(path)


def _one_column(path: str, dialect: CsvDialect) -> bool:
    """Whether the first line of ``path`` holds no delimiter: a file of one column."""
    with open(path, encoding=dialect.encoding, errors="surrogateescape", newline="") as lines:
        return dialect.delimiter not in next(lines, "")


def _has_empty_line(path: str) -> bool:
    """Whether ``path`` holds an empty line (inside a quoted field or not: a copy reads either right)."""
    previous = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            joined = previous + chunk
            if b"\n\n" in joined or b"\n\r\n" in joined or b"\r\r" in joined:
                return True
            previous = chunk[-2:]
    return False


def _after_a_value(path: str, mark: bytes) -> bool:
    """Whether a comment character in ``path`` is not the first of its line (in a quoted field or
    not: a copy reads either right)."""
    previous = b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            starts = (
                chunk.count(b"\n" + mark) + chunk.count(b"\r" + mark) + (previous in b"\r\n" and chunk.startswith(mark))
            )
            if chunk.count(mark) > starts:
                return True
            previous = chunk[-1:]
    return False


def _copy(path: str, dialect: CsvDialect) -> str:
    """A copy of ``path`` without the lines that start a record with the comment character, and
    without its empty lines (outside quoted fields)."""
    if not _copies:
        _copies.append(tempfile.mkdtemp(prefix="gryph-csv-"))
        atexit.register(shutil.rmtree, _copies[0], ignore_errors=True)
    target = tempfile.mkstemp(suffix=".csv", dir=_copies[0])[1]
    mark, quote, escape = dialect.comment, dialect.quote, dialect.escape
    inside = False  # within a quoted field: a line starting there is no comment
    # bytes that are not of the encoding are copied as they are: DuckDB then refuses them as it would
    with (
        open(path, encoding=dialect.encoding, errors="surrogateescape", newline="") as lines,
        open(target, "w", encoding=dialect.encoding, errors="surrogateescape", newline="") as out,
    ):
        for line in lines:
            if not inside and ((mark and line.startswith(mark)) or not line.strip("\r\n")):
                continue
            out.write(line)
            if quote:  # a quote doubled inside quotes leaves the count even; an escaped one is not counted
                counted = (
                    line.replace(escape * 2, "").replace(escape + quote, "") if escape not in ("", quote) else line
                )
                inside ^= bool(counted.count(quote) % 2)
    return target
