"""How a CSV file is split into rows and fields, decided once by gryph and given to both engines.

Left to themselves the engines disagree: DuckDB sniffs a file's delimiter, quote and encoding,
Spark assumes commas, double quotes escaped by a backslash, and UTF-8. ``csv_dialect`` decides
a source's ``CsvDialect`` here, from its options and, for what they leave open, from its first
local file; DuckDB's ``read_csv`` (local_backend/sources/source_views.py) and Spark's reader
(client/spark/sources/source_loading.py) are each given all of it explicitly.

The types of the values are not part of the dialect: a file is split here, typed elsewhere.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import warnings
from dataclasses import dataclass

import duckdb

from ..errors import InvalidInput, LocatedWarning
from .local_files import local_files
from .source_specs import SourceSpec
from .unchanged_files import while_unchanged

_TRUE = {"true", "1", "yes", "y", "on"}
_FALSE = {"false", "0", "no", "n", "off"}

# the encodings both engines read, by the names a source may give them
ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "latin-1": "latin-1", "latin1": "latin-1", "iso-8859-1": "latin-1"}
_UTF8_BOM = codecs.BOM_UTF8
_SAMPLE_BYTES = 1 << 20  # what the encoding and quoted line breaks are judged from


@dataclass(frozen=True)
class CsvDialect:
    """How a CSV file is split. ``quote`` and ``escape`` are one character or "" (none);
    ``line_break`` is ``\\n``, ``\\r\\n`` or ``\\r``; ``encoding`` is ``utf-8`` (a byte order mark
    skipped) or ``latin-1``; ``multi_line``: quoted fields may hold line breaks. A null marker is
    no part of it: how values are read is not the dialect's to say (``gryph suggest`` finds one
    from the values' types: client/suggestions/declared_types.py)."""

    delimiter: str = ","
    quote: str = '"'
    escape: str = '"'  # a quote inside a quoted field is doubled, as RFC 4180 has it
    comment: str = ""
    line_break: str = "\n"
    header: bool = True
    encoding: str = "utf-8"
    multi_line: bool = False

    def source_options(self, defaults: CsvDialect) -> tuple[tuple[str, object], ...]:
        """The source options that say this dialect where it differs from ``defaults`` (what a
        source declaring no option is read with), as ``gryph suggest`` writes them."""
        said = (
            ("delimiter", self.delimiter, defaults.delimiter),
            ("quote", self.quote, defaults.quote),
            ("escape", self.escape, defaults.escape),
            ("comment", self.comment, defaults.comment),
            ("header", self.header, defaults.header),
            ("encoding", self.encoding, defaults.encoding),
            ("multiLine", self.multi_line, defaults.multi_line),
        )
        return tuple((key, value) for key, value, default in said if value != default)


def flag_option(spec: SourceSpec, key: str, default: bool) -> bool:
    """A true-or-false option of ``spec`` (``true``, ``"yes"``, ``0``...), ``default`` when absent."""
    value = spec.option(key, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in _TRUE | _FALSE:
        raise InvalidInput(
            "SOURCE_BAD_OPTION",
            f"source {spec.name!r}: option {key}={value!r} should be true or false",
            location=spec.location,
        )
    return text in _TRUE


def csv_dialect(spec: SourceSpec) -> CsvDialect:
    """The dialect both engines read ``spec``'s CSV (or TSV) files with: what its options say, the
    rest as its first non-empty local file shows it; defaults where no file is here (a URL, a
    remote server's path)."""
    given = _given(spec)
    sample = first_local_file(spec)
    if sample is None:
        return CsvDialect(**given)  # type: ignore[arg-type]  # the fields' own names and types
    return while_unchanged(f"csv dialect {sorted(given.items())}", [sample], lambda: _sniffed(spec, sample, given))


def default_dialect(spec: SourceSpec) -> CsvDialect:
    """What a source of ``spec``'s format declaring no dialect option is read with, its file aside."""
    delimiter = spec.kind.delimiter
    return CsvDialect(delimiter=delimiter) if delimiter else CsvDialect()


def _given(spec: SourceSpec) -> dict[str, object]:
    """The dialect's fields ``spec``'s options set (a TSV's delimiter is a tab unless told)."""
    given: dict[str, object] = {}
    delimiter = spec.option("delimiter", spec.option("sep", spec.kind.delimiter))
    for field, value in (
        ("delimiter", delimiter),
        ("quote", spec.option("quote")),
        ("escape", spec.option("escape")),
        ("comment", spec.option("comment")),
    ):
        if value is not None:
            given[field] = _character(spec, field, str(value), allow_many=field == "delimiter")
    if spec.option("header") is not None:
        given["header"] = flag_option(spec, "header", True)
    if spec.option("multiLine") is not None:
        given["multi_line"] = flag_option(spec, "multiLine", False)
    encoding = spec.option("encoding", spec.option("charset"))
    if encoding is not None:
        if str(encoding).strip().lower() not in ENCODINGS:
            raise InvalidInput(
                "SOURCE_BAD_OPTION",
                f"source {spec.name!r}: option encoding={encoding!r} is not an encoding both engines read",
                location=spec.location,
                hint='use "utf-8" or "latin-1" (ISO-8859-1)',
            )
        given["encoding"] = ENCODINGS[str(encoding).strip().lower()]
    if "quote" in given and "escape" not in given:
        given["escape"] = given["quote"]  # a quote doubled inside quotes, whichever the quote is
    return given


def _character(spec: SourceSpec, field: str, value: str, *, allow_many: bool) -> str:
    if value in ("\n", "\r") or (not allow_many and len(value) > 1) or (allow_many and not value):
        what = "one or more characters, not a line break" if allow_many else "one character or none"
        raise InvalidInput(
            "SOURCE_BAD_OPTION",
            f"source {spec.name!r}: option {field}={value!r} should be {what}",
            location=spec.location,
        )
    return value


def _sniffed(spec: SourceSpec, path: str, given: dict[str, object]) -> CsvDialect:
    """The dialect of the file ``path``: ``given`` fields as given, the others found in it."""
    head = _head(path)
    encoding = str(given.get("encoding") or _encoding(head))
    found = _duckdb_sniff(path, {**given, "encoding": encoding}, default_dialect(spec))
    text = _text(head, encoding)
    if found and not found["quote"] and '"' not in text:
        found["quote"] = found["escape"] = '"'  # no quote in the file: read it as quoted by default
    fields = {**found, **given, "encoding": encoding}
    quote = str(fields.get("quote", '"'))
    # split once, for both looks below; a file without its quote character is not split (a large
    # export often has none): no field of it holds a line break or a quote
    rows = _numbered_rows(text, fields) if quote and quote in text else []
    if "multi_line" not in fields:
        fields["multi_line"] = any("\n" in field or "\r" in field for _, row in rows for field in row)
    _warn_blank_before_quote(spec, path, rows, quote)
    return CsvDialect(**fields)  # type: ignore[arg-type]  # the fields' own names and types


def _warn_blank_before_quote(spec: SourceSpec, path: str, rows: list[tuple[int, list[str]]], quote: str) -> None:
    """A warning when a field of the sample's ``rows`` starts with blanks then the ``quote``
    (``1, "x"``): Spark reads it as written, quotes included, DuckDB as the quoted text ``x``; no
    option of either engine reads it as the other does, but both read quotes as text alike."""
    # split as the CSV standard has it (Spark too): a quote after blanks opens no quoted field
    line = next(
        (
            number
            for number, row in rows
            for field in row
            if field[:1] in (" ", "\t") and field.lstrip(" \t")[:1] == quote
        ),
        None,
    )
    if line is None:
        return
    error = InvalidInput(
        "BLANK_BEFORE_QUOTE",
        f"{path} line {line}: a blank before a quote: Spark reads that field as written, quotes "
        "included, DuckDB as the text the quotes enclose",
        location=spec.location,
        text=spec.as_written(),
        hint='quote = "" reads every quote as text, on both engines alike',
    )
    warnings.warn(LocatedWarning(error), stacklevel=2)


def first_local_file(spec: SourceSpec) -> str | None:
    """The first non-empty file of ``spec`` on this machine."""
    return next((f for f in local_csv_files(spec) if os.path.getsize(f) > 0), None)


def local_csv_files(spec: SourceSpec) -> list[str]:
    """The files of ``spec`` on this machine (its URLs left out)."""
    return [f for path in spec.paths if "://" not in path for f in local_files(spec, path)]


def sampled_bytes(path: str) -> int:
    """How many of the first bytes of ``path`` its dialect is judged from: the first MiB, to the
    start of its last line (cut short, that line is left out), or the whole of a smaller file."""
    head = _head(path)
    return head.rfind(b"\n") + 1 if len(head) == _SAMPLE_BYTES else len(head)


def _head(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(_SAMPLE_BYTES)


def _text(head: bytes, encoding: str) -> str:
    """The first lines of a file, from its first bytes ``head``: a last line cut short left out."""
    text = head.removeprefix(_UTF8_BOM).decode(encoding, errors="replace")
    if len(head) == _SAMPLE_BYTES:
        text = text[: max(text.rfind("\n"), 0)]
    return text


def _encoding(head: bytes) -> str:
    """UTF-8 when the sample is UTF-8 (a character cut at its end aside), else Latin-1, which
    every byte is."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head.removeprefix(_UTF8_BOM), final=False)
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"


# DuckDB's sniffer's columns, the dialect's fields and the read_csv argument each is given as
_SNIFFED = (
    ("Delimiter", "delimiter", "delim"),
    ("Quote", "quote", "quote"),
    ("Escape", "escape", "escape"),
    ("NewLineDelimiter", "line_break", "new_line"),
    ("Comment", "comment", "comment"),
)


def _duckdb_sniff(path: str, given: dict[str, object], defaults: CsvDialect) -> dict[str, object]:
    """What DuckDB's sniffer finds of the dialect ``given`` leaves open (``defaults`` when it
    cannot sniff the file: reading it then says why)."""
    arguments = {"header": bool(given.get("header", True)), "encoding": given["encoding"]}
    arguments |= {argument: given[field] for _, field, argument in _SNIFFED if field in given}
    named = ", ".join(f"{name} = ${name}" for name in arguments)
    columns = ", ".join(column for column, _, _ in _SNIFFED)
    try:
        with duckdb.connect() as con:
            row = con.execute(
                f"SELECT {columns} FROM sniff_csv($path, {named}, all_varchar = true, null_padding = true)",
                {"path": path, **arguments},
            ).fetchone()
    except duckdb.Error:
        return {}
    assert row is not None, "sniff_csv answers one row"
    found: dict[str, object] = {}
    for (_, field, _), value in zip(_SNIFFED, row, strict=True):
        text = "" if value == "(empty)" else str(value)  # how sniff_csv says there is none
        found[field] = codecs.decode(text, "unicode_escape") if field == "line_break" else text
    if found["quote"] and not found["escape"]:
        found["escape"] = found["quote"]  # no escape seen: a quote doubled, as RFC 4180 has it
    if not found["line_break"]:
        found["line_break"] = defaults.line_break
    return found


def _numbered_rows(text: str, dialect: dict[str, object]) -> list[tuple[int, list[str]]]:
    """The sample's rows as Python's csv module splits them with ``dialect``, each with the
    number of the line it ends on; comment lines left out."""
    quote, escape = str(dialect.get("quote", '"')), str(dialect.get("escape", '"'))
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=str(dialect.get("delimiter", ",")),
        quotechar=quote or None,
        quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
        doublequote=escape == quote,
        escapechar=escape if escape and escape != quote else None,
        strict=False,
    )
    comment = dialect.get("comment")
    try:
        return [(reader.line_num, row) for row in reader if not (comment and row and row[0][:1] == comment)]
    except csv.Error:  # a delimiter of several characters: Python's csv cannot split by it
        return []
