"""A CSV's dialect decided once by gryph (compiler/sources/csv_dialects.py): from the source's
options, the rest from its first local file; each expectation derived from the bytes written."""

from __future__ import annotations

import duckdb
import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.sources import csv_dialects
from gryph.compiler.sources.csv_dialects import CsvDialect, csv_dialect, default_dialect
from gryph.compiler.sources.source_specs import SourceSpec


def _spec(path, *options, fmt="csv") -> SourceSpec:
    return SourceSpec("s", fmt, paths=(str(path),), options=tuple(options))


def _dialect_of(tmp_path, data: bytes, *options, fmt="csv") -> CsvDialect:
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    return csv_dialect(_spec(path, *options, fmt=fmt))


@pytest.mark.parametrize(
    ("data", "delimiter"),
    [
        (b"id;name;amount\n1;Ann;10.5\n2;Bob;3\n", ";"),
        (b"id\tname\n1\tAnn\n2\tBob\n", "\t"),
        (b"id|name\n1|Ann\n2|Bob\n", "|"),
        (b"id,name\n1,Ann\n2,Bob\n", ","),
    ],
)
def test_the_delimiter_is_found(tmp_path, data, delimiter):
    assert _dialect_of(tmp_path, data).delimiter == delimiter


def test_a_file_as_written_by_most_tools(tmp_path):
    """CR LF line breaks, quotes doubled inside quoted fields: every field of the dialect."""
    dialect = _dialect_of(tmp_path, b'name;note\r\nann;"a; b"\r\nbob;"say ""hi"""\r\n')
    assert dialect == CsvDialect(delimiter=";", quote='"', escape='"', line_break="\r\n")


def test_encodings_and_a_byte_order_mark(tmp_path):
    assert _dialect_of(tmp_path, b"\xef\xbb\xbfid,name\n1,Zo\xc3\xab\n").encoding == "utf-8"
    assert _dialect_of(tmp_path, b"id,name\n1,Ren\xe9e\n").encoding == "latin-1"  # 0xE9 alone is no UTF-8
    # a UTF-8 character cut by the end of the sample is still UTF-8
    many = b"id,name\n" + b"1,\xc3\xa9\n" * ((csv_dialects._SAMPLE_BYTES // 7) + 1)
    assert _dialect_of(tmp_path, many).encoding == "utf-8"


def test_quoted_line_breaks_make_a_multi_line_file(tmp_path):
    assert _dialect_of(tmp_path, b'id,note\n1,"two\nlines"\n').multi_line
    assert _dialect_of(tmp_path, b'id,note\r\n1,"two\r\nlines"\r\n').multi_line
    assert not _dialect_of(tmp_path, b'id,note\n1,"one, line"\n').multi_line


def test_a_quote_that_quotes_nothing_turns_quoting_off(tmp_path):
    """csv-spectrum's location_coordinates: '"' for seconds of arc inside unquoted fields."""
    dialect = _dialect_of(tmp_path, b"phone,where\n2095257564,37'37.8\"N 121'17.9\"W\n")
    assert (dialect.quote, dialect.escape) == ("", "")
    assert _dialect_of(tmp_path, b"a,b\n1,2\n").quote == '"'  # no quote at all: the default


def test_options_the_source_gives_are_kept(tmp_path):
    data = b"a;b\n1;2\n"
    assert _dialect_of(tmp_path, data, ("delimiter", ",")).delimiter == ","
    assert _dialect_of(tmp_path, data, ("sep", "|")).delimiter == "|"  # Spark's spelling
    given = _dialect_of(tmp_path, data, ("quote", "'"), ("header", "false"), ("encoding", "ISO-8859-1"))
    assert (given.quote, given.escape, given.header, given.encoding) == ("'", "'", False, "latin-1")
    assert _dialect_of(tmp_path, data, ("multiLine", True)).multi_line
    assert _dialect_of(tmp_path, b"a\tb\n1\t2\n", fmt="tsv").delimiter == "\t"


@pytest.mark.parametrize(
    ("option", "problem"),
    [
        (("encoding", "utf-16"), "not an encoding both engines read"),
        (("quote", "''"), "one character or none"),
        (("delimiter", ""), "one or more characters"),
        (("header", "maybe"), "should be true or false"),
    ],
)
def test_a_bad_dialect_option_is_a_located_error(tmp_path, option, problem):
    with pytest.raises(InvalidInput) as error:
        _dialect_of(tmp_path, b"a,b\n1,2\n", option)
    assert error.value.code == "SOURCE_BAD_OPTION" and problem in error.value.message


def test_no_file_here_is_read_with_the_options_and_the_defaults(tmp_path):
    """A URL (or a remote server's path) cannot be looked at: both engines get the same defaults."""
    url = SourceSpec("s", "csv", paths=("https://example.invalid/x.csv",), options=(("delimiter", ";"),))
    assert csv_dialect(url) == CsvDialect(delimiter=";")
    (tmp_path / "empty.csv").write_bytes(b"")
    assert csv_dialect(_spec(tmp_path / "empty.csv")) == CsvDialect()
    assert csv_dialect(_spec(tmp_path / "nowhere.csv", fmt="tsv")) == default_dialect(_spec("x", fmt="tsv"))


def test_a_dialect_is_learnt_once_while_the_file_is_unchanged(tmp_path, monkeypatch):
    """A stream reads a static file every batch: its dialect is sniffed again only once it changed."""
    calls = []
    real = duckdb.connect
    monkeypatch.setattr(csv_dialects.duckdb, "connect", lambda *a, **k: calls.append(1) or real(*a, **k))
    path = tmp_path / "f.csv"
    path.write_bytes(b"a;b\n1;2\n")
    assert csv_dialect(_spec(path)).delimiter == csv_dialect(_spec(path)).delimiter == ";"
    assert len(calls) == 1
    path.write_bytes(b"a|b\n1|2\n333|4\n")
    assert csv_dialect(_spec(path)).delimiter == "|"
    assert len(calls) == 2


def test_the_options_that_say_a_dialect(tmp_path):
    """What ``gryph suggest`` writes: only what differs from a source without options."""
    found = CsvDialect(delimiter=";", quote="", escape="", encoding="latin-1", multi_line=True)
    assert found.source_options(CsvDialect()) == (
        ("delimiter", ";"),
        ("quote", ""),
        ("escape", ""),
        ("encoding", "latin-1"),
        ("multiLine", True),
    )
    assert CsvDialect(delimiter="\t").source_options(CsvDialect(delimiter="\t")) == ()
