"""What a CSV source's dialect, judged from its first MiB, cannot read further on, found alike for
both engines.

gryph judges a file's encoding and whether its quoted fields hold line breaks from its first MiB
(csv_dialects.py). A byte that is not UTF-8 in a file read as UTF-8 (told so, or past that MiB),
or a quoted line break in a file found single-line, is read differently by the engines left to
themselves: DuckDB fails, Spark reads U+FFFD or splits the record in two. Both refuse such a file
alike instead, naming the file, the line and the byte, with the fix: Spark after ``refuse_misread``
scanned its local files (a chunk of plain ASCII text without the quote costs two C scans), DuckDB
when its own read fails (``located_misread``: a clean file pays nothing there).
"""

from __future__ import annotations

import codecs
import re

from ..errors import EngineError
from .csv_dialects import CsvDialect, csv_dialect, first_local_file, local_csv_files, sampled_bytes
from .source_specs import SourceSpec
from .unchanged_files import while_unchanged
from .unreadable_files import unreadable_source

_CHUNK = 1 << 24
NOT_UTF8_HINT = 'add encoding = "latin-1" to the source if it is Latin-1 (ISO-8859-1) text'
MULTI_LINE_HINT = "add multiLine = true to the source: both engines then read records over several lines"


def refuse_misread(spec: SourceSpec) -> None:
    """Raise ``SOURCE_UNREADABLE`` when a local file of ``spec`` holds what its dialect misreads."""
    dialect, sampled = csv_dialect(spec), first_local_file(spec)
    for file in local_csv_files(spec):
        error = _located(spec, dialect, file, sampled=file == sampled)
        if error is not None:
            raise error


def located_misread(spec: SourceSpec, file: str) -> EngineError | None:
    """``SOURCE_UNREADABLE`` naming where and why ``spec``'s dialect misreads its local ``file``,
    with the fix; None when it reads it all."""
    return _located(spec, csv_dialect(spec), file, sampled=file == first_local_file(spec))


def _located(spec: SourceSpec, dialect: CsvDialect, file: str, *, sampled: bool) -> EngineError | None:
    # the sampled file's first bytes were found single-line by Python's csv module (csv_dialects.py),
    # unless the source said so itself
    skip = sampled_bytes(file) if sampled and spec.option("multiLine") is None else 0
    found = while_unchanged(f"misread {dialect} past {skip}", [file], lambda: misread_in(file, dialect, skip))
    if found is None:
        return None
    where_and_why, hint = found
    return unreadable_source(spec, f"{file} {where_and_why}", hint)


def misread_in(path: str, dialect: CsvDialect, skip: int = 0) -> tuple[str, str] | None:
    """Where and why ``dialect`` misreads the file ``path`` (line, byte, what), with the fix; None
    when it reads it all. A quoted line break is looked for past the first ``skip`` bytes."""
    decoder = codecs.getincrementaldecoder("utf-8")() if dialect.encoding == "utf-8" else None
    breaks = _QuotedBreaks(dialect) if not dialect.multi_line else None
    offset = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            if decoder is not None and not (chunk.isascii() and not decoder.getstate()[0]):
                not_utf8 = _not_utf8(decoder, chunk, offset)
                if not_utf8 is not None:
                    return _not_utf8_at(path, not_utf8, dialect)
            broken = breaks.first_in(chunk, offset, skip) if breaks is not None else None
            if broken is not None:
                return f"line {_line_of(path, broken, dialect)}: a quoted field holds a line break", MULTI_LINE_HINT
            offset += len(chunk)
    if decoder is not None and decoder.getstate()[0]:  # the file ends within a character
        return _not_utf8_at(path, offset - len(decoder.getstate()[0]), dialect)
    return None


def _not_utf8(decoder: codecs.IncrementalDecoder, chunk: bytes, offset: int) -> int | None:
    """The offset in its file of the first byte of ``chunk`` (at ``offset``) that is not UTF-8."""
    pending = len(decoder.getstate()[0])
    try:
        decoder.decode(chunk)
    except UnicodeDecodeError as error:
        return offset - pending + error.start  # the decoder read its pending bytes first
    return None


def _not_utf8_at(path: str, at: int, dialect: CsvDialect) -> tuple[str, str]:
    shown = f"0x{_byte_at(path, at):02X}"
    return f"line {_line_of(path, at, dialect)}, byte {at}: {shown} is not UTF-8", NOT_UTF8_HINT


class _QuotedBreaks:
    """The first line break inside a quoted field, chunk by chunk. A quote is doubled inside quotes
    (or never), so a record on one line holds an even number of quotes: with every other byte
    dropped and every pair of adjacent quotes removed, a quote left before a line break opened a
    field that the break is inside of."""

    def __init__(self, dialect: CsvDialect) -> None:
        quote = dialect.quote.encode()
        # a quote escaped by another character hides from the count: not looked for then
        self._quote = quote if len(quote) == 1 and dialect.escape in (dialect.quote, "") else b""
        self._drop = bytes(b for b in range(256) if b not in (*self._quote, 10, 13))
        self._open = 0  # quotes (0 or 1) not yet closed where the last chunk's last line ended

    def first_in(self, chunk: bytes, offset: int, skip: int) -> int | None:
        """The offset of the first line break inside quotes in ``chunk`` (at ``offset`` in its file)."""
        if not self._quote:
            return None
        if offset + len(chunk) <= skip:
            return None
        if offset < skip:  # the sampled part ended a record (csv_dialects.py): the count starts there
            chunk, offset = chunk[skip - offset :], skip
        if self._quote not in chunk and not self._open:
            return None
        kept = (self._quote * self._open + chunk.translate(None, self._drop)).replace(self._quote * 2, b"")
        last_break = max(kept.rfind(b"\n"), kept.rfind(b"\r"))
        if self._quote not in kept[: last_break + 1]:
            self._open = kept[last_break + 1 :].count(self._quote) % 2
            return None
        return offset + self._first_open_break(chunk)

    def _first_open_break(self, chunk: bytes) -> int:
        """Where in ``chunk`` a line break first falls inside quotes (one does)."""
        inside = bool(self._open)
        for match in re.finditer(b"[" + re.escape(self._quote) + b"\r\n]", chunk):
            if match.group() == self._quote:
                inside = not inside
            elif inside:
                return match.start()
        raise AssertionError("a chunk with a quoted line break has one")


def _line_of(path: str, at: int, dialect: CsvDialect) -> int:
    """The number of the line of ``path`` holding byte ``at`` (counting the dialect's line breaks)."""
    mark, lines = dialect.line_break[-1].encode(), 1
    with open(path, "rb") as handle:
        while at > 0 and (chunk := handle.read(min(at, _CHUNK))):
            lines += chunk.count(mark)
            at -= len(chunk)
    return lines


def _byte_at(path: str, at: int) -> int:
    with open(path, "rb") as handle:
        handle.seek(at)
        return handle.read(1)[0]
