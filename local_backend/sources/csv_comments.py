"""A CSV's comment lines left out as Spark and Python's csv module leave them, for DuckDB.

Spark skips a line that starts with the comment character and keeps one after a value as text
(``1,a # note`` is ``a # note``); DuckDB's reader ends the line at a comment character anywhere
outside quotes (``a``), and cannot be told otherwise. A file whose comment characters all start
lines reads alike with DuckDB's own option (the usual file: nothing is copied). Another is read
from a copy without its comment lines, made once while the file is unchanged and removed when the
process ends: only sources declaring ``comment`` with such a file pay for it.
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


def without_comment_lines(files: list[str], dialect: CsvDialect) -> list[str] | None:
    """The files DuckDB reads, without ``dialect.comment``, for ``files``: copies without their
    comment lines where a comment character follows a value; None when DuckDB's own option reads
    every file as Spark does (or there is no comment character, or a file is not local)."""
    if not dialect.comment or any("://" in f for f in files):
        return None
    mark = dialect.comment.encode(dialect.encoding)
    inline = [while_unchanged(f"comment after a value {mark!r}", [f], partial(_after_a_value, f, mark)) for f in files]
    if not any(inline):
        return None
    return [
        while_unchanged(f"without comment lines {dialect}", [f], partial(_copy, f, dialect)) if found else f
        for f, found in zip(files, inline, strict=True)
    ]


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
    """A copy of ``path`` without the lines that start a record with the comment character."""
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
            if not inside and line.startswith(mark):
                continue
            out.write(line)
            if quote:  # a quote doubled inside quotes leaves the count even; an escaped one is not counted
                counted = (
                    line.replace(escape * 2, "").replace(escape + quote, "") if escape not in ("", quote) else line
                )
                inside ^= bool(counted.count(quote) % 2)
    return target
