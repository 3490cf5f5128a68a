"""CSV files nobody here wrote, and the dialects real files come in, read alike on both engines.

Each file is read on DuckDB and on Spark with no option but what its case gives, and compared with
Python's ``csv`` module reading it with the dialect stated by hand (an independent reader): the
same row count and values, the column types stated by hand, and the column names stated by hand,
which are Spark's names for the header Python's csv module reads: no engine differs.
csv-spectrum's JSON files and JSON lines of mixed types are read alike too.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from gryph.compiler.errors import EngineError, LocatedWarning
from gryph.compiler.sources.csv_dialects import csv_dialect
from gryph.compiler.sources.declared_schemas import parse_schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.spark_emulation.csv_headers import spark_header
from tests.support.plan_helpers import read, run_one

CORPUS = Path(__file__).resolve().parents[1] / "data" / "csv_corpus"


@dataclass(frozen=True)
class Case:
    """A file (a corpus path, or bytes written here), how Python's csv module splits it, and the
    columns both engines give it: Spark's names for its header, and the types inferred by Spark's
    rules (all integer text, an integer)."""

    types: list[tuple[str, str]]
    path: str = ""
    data: bytes = b""
    delimiter: str = ","
    quoting: int = csv.QUOTE_MINIMAL
    encoding: str = "utf-8-sig"  # a byte order mark is not part of the first column's name
    options: tuple[tuple[str, object], ...] = ()
    null: tuple[str, ...] = ("",)  # the texts read as NULL
    skip: int = 0  # comment lines before the header


S, I, D, DATE = "string", "integer", "double", "date"


def _numbered(prefix: str, count: int, kind: str) -> list[tuple[str, str]]:
    """Columns ``prefix_1`` to ``prefix_{count}``, each of ``kind``, as R names a matrix's cells."""
    return [(f"{prefix}_{i}", kind) for i in range(1, count + 1)]


CASES = {
    # csv-spectrum: every value as its json/ folder has it; types by Spark's rules
    "comma_in_quotes": Case([("first", S), ("last", S), ("address", S), ("city", S), ("zip", I)]),
    "empty": Case([("a", I), ("b", I), ("c", I)]),  # a quoted empty field is NULL on both ("" is the null text)
    "empty_crlf": Case([("a", I), ("b", I), ("c", I)]),
    "escaped_quotes": Case([("a", I), ("b", S)]),
    "json": Case([("key", I), ("val", S)]),
    # a '"' inside an unquoted field: the file is read without quoting (DuckDB's sniffer finds so)
    "location_coordinates": Case(
        [("Contact Phone Number", I), ("Location Coordinates", S), ("Cities", S), ("Counties", S)],
        quoting=csv.QUOTE_NONE,
    ),
    "newlines": Case([("a", S), ("b", I), ("c", I)]),
    "newlines_crlf": Case([("a", S), ("b", I), ("c", I)]),
    "quotes_and_newlines": Case([("a", I), ("b", S)]),
    "simple": Case([("a", I), ("b", I), ("c", I)]),
    "simple_crlf": Case([("a", I), ("b", I), ("c", I)]),
    "utf8": Case([("a", I), ("b", I), ("c", S)]),
    # PyPI packages' data: R's NA in numeric columns, read as text unless nullValue says it
    "penguins": Case(
        [
            ("species", S),
            ("island", S),
            ("bill_length_mm", S),
            ("bill_depth_mm", S),
            ("flipper_length_mm", S),
            ("body_mass_g", S),
            ("sex", S),
            ("year", I),
        ],
        path="pypi/penguins.csv",
    ),
    "penguins_na": Case(
        [
            ("species", S),
            ("island", S),
            ("bill_length_mm", D),
            ("bill_depth_mm", D),
            ("flipper_length_mm", I),
            ("body_mass_g", I),
            ("sex", S),
            ("year", I),
        ],
        path="pypi/penguins.csv",
        options=(("nullValue", "NA"),),
        null=("NA", ""),
    ),
    "penguins_raw": Case(
        [
            ("studyName", S),
            ("Sample Number", I),
            ("Species", S),
            ("Region", S),
            ("Island", S),
            ("Stage", S),
            ("Individual ID", S),
            ("Clutch Completion", S),
            ("Date Egg", DATE),
            *((name, D) for name in ("Culmen Length (mm)", "Culmen Depth (mm)")),
            *((name, I) for name in ("Flipper Length (mm)", "Body Mass (g)")),
            ("Sex", S),
            *((name, D) for name in ("Delta 15 N (o/oo)", "Delta 13 C (o/oo)")),
            ("Comments", S),
        ],
        path="pypi/penguins-raw.csv",
        options=(("nullValue", "NA"),),
        null=("NA", ""),
    ),
    "iowa_electricity": Case([("year", DATE), ("source", S), ("net_generation", I)], path="pypi/iowa-electricity.csv"),
    # a space after each comma, the header's too: Spark keeps it in the names (DuckDB trimmed it)
    "arima111_forecasts": Case(
        [("dates", S), *((f" {name}", D) for name in ("cpi", "predict", "stderr", "conf1", "conf2"))],
        path="pypi/arima111_forecasts.csv",
    ),
    # v_1 and V_1 (v_2 and V_2) differ only in case: Spark suffixes each with its position
    "results_exact_initial_var1_R": Case(
        [
            *_numbered("r", 2, D),
            *_numbered("r0", 2, D),
            *_numbered("r1", 2, D),
            *(("N_1", D), ("N_2", I), ("N_3", I), ("N_4", D), ("N0_1", D), ("N0_2", I), ("N0_3", I), ("N0_4", D)),
            *_numbered("N1", 4, I),
            *_numbered("N2", 4, I),
            *_numbered("m", 2, D),
            *(("v_124", D), ("v_225", D)),
            *_numbered("F", 2, I),
            *_numbered("Finf", 2, I),
            *_numbered("K", 4, I),
            *_numbered("Kinf", 4, I),
            *_numbered("a", 2, D),
            *_numbered("P", 4, I),
            *_numbered("Pinf", 4, I),
            *_numbered("att", 2, D),
            *_numbered("Ptt", 4, I),
            *_numbered("alphahat", 2, D),
            *(("V_156", I), ("V_257", I), ("V_3", I), ("V_4", I)),
            *_numbered("muhat", 2, D),
            *_numbered("Vmu", 4, I),
            *_numbered("etahat", 2, D),
            *_numbered("Veta", 4, I),
            *_numbered("epshat", 2, I),
            *_numbered("Veps", 2, I),
            ("llf", D),
        ],
        path="pypi/results_exact_initial_var1_R.csv",
        options=(("nullValue", "NA"),),
        null=("NA", ""),
    ),
    # the dialects of real files, written here
    "semicolon": Case(
        [("id", I), ("name", S), ("amount", D)], data=b"id;name;amount\n1;Ann;10.5\n2;Bob;3\n", delimiter=";"
    ),
    "tab": Case([("id", I), ("name", S)], data=b"id\tname\n1\tAnn\n2\tB b\n", delimiter="\t"),
    "pipe": Case([("id", I), ("note", S)], data=b'id|note\n1|"a|b"\n2|plain\n', delimiter="|"),
    "crlf_quoted": Case([("id", I), ("note", S)], data=b'id,note\r\n1,"two\r\nlines"\r\n2,"say ""hi"""\r\n'),
    "utf8_bom": Case([("id", I), ("name", S)], data=b"\xef\xbb\xbfid,name\n1,Zo\xc3\xab\n2,\xe5\x8c\x97\xe4\xba\xac\n"),
    "latin1": Case(
        [("id", I), ("name", S), ("city", S)],
        data=b"id;name;city\n1;Ren\xe9e;K\xf6ln\n2;Ann;Paris\n",
        delimiter=";",
        encoding="latin-1",
    ),
    "na_marker": Case(
        [("id", I), ("score", D), ("label", S)],
        data=b"id,score,label\n1,NA,a\n2,3.5,NA\n3,,b\n",
        options=(("nullValue", "NA"),),
        null=("NA", ""),
    ),
    "comment": Case(
        [("id", I), ("name", S)],
        data=b"# exported 2024-01-05\nid,name\n1,a\n2,b\n",
        options=(("comment", "#"),),
        skip=1,
    ),
    # an empty line is no record (Spark skips it; DuckDB read one as a NULL row in a file of one
    # column): a quoted empty field is one, NULL on both ("" is the null text)
    "one_column_empty_lines": Case([("status", S)], data=b'status\nopen\n\npaid\n""\n\n'),
    "one_column_empty_lines_crlf": Case([("n", I)], data=b"n\r\n1\r\n\r\n2\r\n\r\n"),
    # a name repeated (in any case) is suffixed with its position, an empty one is _c and its
    # position; whitespace stays as written
    "header_names": Case(
        [("a0", I), ("a1", I), ("A2", I), ("_c3", I), ("b ", I), (" c", I)], data=b"a,a,A,,b , c\n1,2,3,4,5,6\n"
    ),
    # an empty last field of the header is a column too; so is a field that is the null marker,
    # quoted or not
    "header_ends_empty": Case([("a", I), ("b", I), ("_c2", I)], data=b"a,b,\n1,2,3\n"),
    "header_null_marker": Case(
        [("a", I), ("_c1", I), ("_c2", I), ("b", I)],
        data=b'a,NA,"NA",b\n1,2,3,4\n',
        options=(("nullValue", "NA"),),
        null=("NA", ""),
    ),
    "latin1_given": Case(
        [("id", I), ("name", S)],
        data=b"id,name\n1,caf\xe9\n",
        encoding="latin-1",
        options=(("encoding", "ISO-8859-1"),),
    ),
}


def _file(case_name: str, case: Case, folder: Path) -> Path:
    if case.data:
        path = folder / f"{case_name}.csv"
        path.write_bytes(case.data)
        return path
    return CORPUS / (case.path or f"csv-spectrum/{case_name}.csv")


def _python_rows(case: Case, path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and rows as Python's csv module reads the file: the independent reading."""
    text = path.read_bytes().decode(case.encoding)
    lines = io.StringIO(text, newline="")
    for _ in range(case.skip):
        lines.readline()
    # the csv module gives an empty line as an empty row: no record, as Spark reads it
    rows = [row for row in csv.reader(lines, delimiter=case.delimiter, quoting=case.quoting, strict=False) if row]
    return rows[0], rows[1:]


def _schema(text: str | None):
    return None if text is None else parse_schema(text)


def _text(value: object) -> str | None:
    """A value as the file writes it (None for NULL): numbers compared as numbers below."""
    if value is None:
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _same(value: object, written: str, case: Case) -> bool:
    if written in case.null:
        return value is None
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return value == int(written)
    if isinstance(value, float):
        return value == float(written) or (math.isnan(value) and written.lower() == "nan")
    return _text(value) == written


@pytest.mark.parametrize("case_name", CASES)
def test_a_csv_reads_as_pythons_csv_module_reads_it(dq_engine, case_name, tmp_path):
    case = CASES[case_name]
    path = _file(case_name, case, tmp_path)
    spec = SourceSpec("corpus", "csv", paths=(str(path),), options=case.options)
    relation = read(dq_engine, spec)
    rows = run_one(dq_engine, relation, {"corpus": spec})
    header, expected = _python_rows(case, path)
    assert [(c.name, c.dtype.kind.value) for c in relation.schema.columns] == case.types
    names = [name for name, _ in case.types]
    assert names == spark_header(header, [str(value) for key, value in case.options if key == "nullValue"])
    assert len(rows) == len(expected)
    for row, written in zip(rows, expected, strict=True):
        assert all(_same(row[name], text, case) for name, text in zip(names, written, strict=True)), (row, written)


@pytest.mark.parametrize(
    ("data", "second"),
    [
        (b'id,note,n\r\n1,"two\r\nlines",3\r\n2,"a\nb",4\r\n', "a\nb"),
        (b'id,note,n\n1,"two\r\nlines",3\n2,"a\rb",4\n', "a\rb"),
        (b'id,note,n\r1,"two\r\nlines",3\r2,"a\nb",4\r', "a\nb"),
    ],
    ids=["crlf", "lf", "cr"],
)
def test_a_line_break_inside_quotes_is_kept_as_written(dq_engine, data, second, tmp_path):
    """Whichever line break ends the records, one inside a quoted field is the field's text as the
    file holds it, on both engines (Spark's parser, left to find the line break, made CR LF an LF);
    the last field of each record holds no CR."""
    path = tmp_path / "breaks.csv"
    path.write_bytes(data)
    spec = SourceSpec("corpus", "csv", paths=(str(path),))
    rows = run_one(dq_engine, read(dq_engine, spec), {"corpus": spec})
    assert rows == [{"id": 1, "note": "two\r\nlines", "n": 3}, {"id": 2, "note": second, "n": 4}]


# --- JSON: csv-spectrum's json/ files (arrays of objects, and one object over several lines) ---


@pytest.mark.parametrize("path", sorted((CORPUS / "csv-spectrum" / "json").glob("*.json")), ids=lambda p: p.stem)
def test_a_json_file_reads_as_pythons_json_module_reads_it(dq_engine, path):
    document = json.loads(path.read_text(encoding="utf-8"))
    objects = document if isinstance(document, list) else [document]
    spec = SourceSpec("corpus", "json", paths=(str(path),))
    relation = read(dq_engine, spec)
    names = sorted({name for obj in objects for name in obj})  # fields in name order, as Spark infers them
    assert [(c.name, c.dtype.kind.value) for c in relation.schema.columns] == [(name, "string") for name in names]
    assert run_one(dq_engine, relation, {"corpus": spec}) == [
        {name: obj.get(name) for name in names} for obj in objects
    ]


# JSON lines whose fields change type between lines: numbers of both kinds are doubles; a field of
# booleans, text and numbers is text (each value as JSON writes it); an object among strings is its
# JSON text; a field never given a value is text, NULL throughout
MIXED_LINES = (
    '{"a": 1, "b": true, "c": {"x": 1}, "id": 1, "u": "Zo\\u00eb"}\n'
    '{"a": 2.5, "b": "yes", "c": "s", "e": null, "id": 2}\n'
    '{"a": 3, "id": 3, "b": false}\n'
    '{"a": 10000000000, "id": 4, "b": 1}\n'
)


def test_json_lines_of_mixed_types(dq_engine, tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(MIXED_LINES, encoding="utf-8")
    spec = SourceSpec("mixed", "json", paths=(str(path),))
    relation = read(dq_engine, spec)
    types = [(c.name, c.dtype.kind.value) for c in relation.schema.columns]
    assert types == [("a", D), ("b", S), ("c", S), ("e", S), ("id", I), ("u", S)]
    rows = run_one(dq_engine, relation, {"mixed": spec})
    objects = [row.pop("c") for row in rows]
    assert rows == [
        {"a": 1.0, "b": "true", "e": None, "id": 1, "u": "Zoë"},
        {"a": 2.5, "b": "yes", "e": None, "id": 2, "u": None},
        {"a": 3.0, "b": "false", "e": None, "id": 3, "u": None},
        {"a": 1e10, "b": "1", "e": None, "id": 4, "u": None},
    ]
    # an object's JSON text is compact on DuckDB, as written on Spark (docs/suites.md): the same JSON
    assert [json.loads(objects[0]), *objects[1:]] == [{"x": 1}, "s", None, None]


# --- the declared differences (docs/sources.md, "CSV files") ----------------------------------


@pytest.mark.parametrize(
    ("data", "rows"),
    [
        (b"id,name\n1,a # note\n#skipped\n2,b\n", [(1, "a # note"), (2, "b")]),
        (
            b'# exported\nid,name\n1,a#b\n#skipped, "odd\n2,"c\n#kept"\n3,"#"\n',
            [(1, "a#b"), (2, "c\n#kept"), (3, "#")],
        ),
        (b"# exported\nid,name\n1,a\n#skipped\n", [(1, "a")]),  # comments only at lines' starts
    ],
    ids=["after_a_value", "inside_quotes", "at_starts_only"],
)
def test_a_comment_character_after_a_value_is_text(dq_engine, data, rows, tmp_path):
    """With comment, a line starting with it is skipped on both engines; after a value, or inside
    quotes, it is text (DuckDB's reader ended the line there)."""
    path = tmp_path / "c.csv"
    path.write_bytes(data)
    spec = SourceSpec("c", "csv", paths=(str(path),), options=(("comment", "#"),))
    read_rows = run_one(dq_engine, read(dq_engine, spec), {"c": spec})
    assert read_rows == [{"id": i, "name": name} for i, name in rows]


@pytest.mark.parametrize("schema", [None, "id bigint, label string, n bigint"], ids=["inferred", "declared"])
def test_a_quoted_empty_field_with_a_null_value(dq_engine, schema, tmp_path):
    """With nullValue, a quoted field is read as written, then the marker is NULL: '""' is empty
    text (Python's csv module reads it so; QUOTE_NOTNULL reads only an unquoted empty field as
    None), '"NA"' NULL, as is an unquoted empty field; '""' in a column of numbers is no number."""
    path = tmp_path / "n.csv"
    path.write_bytes(b'id,label,n\n1,NA,1\n2,,""\n3,"",NA\n4,x,\n5,"NA","NA"\n')
    spec = SourceSpec("n", "csv", paths=(str(path),), options=(("nullValue", "NA"),), schema=_schema(schema))
    relation = read(dq_engine, spec)
    assert [(c.name, c.dtype.kind.value) for c in relation.schema.columns] == [("id", I), ("label", S), ("n", I)]
    rows = run_one(dq_engine, relation, {"n": spec})
    assert [(row["label"], row["n"]) for row in rows] == [
        (None, 1),
        (None, None),
        ("", None),
        ("x", None),
        (None, None),
    ]


# past the first MiB, where gryph judges a file's encoding and quoted line breaks from: 70,000 rows of 17 bytes
_PLAIN_ROWS = b"id,name\n" + b"".join(b"%05d,plain text\n" % i for i in range(70_000))


def _refused_alike(dq_engine, spec) -> EngineError:
    with pytest.raises(EngineError) as error:
        run_one(dq_engine, read(dq_engine, spec), {spec.name: spec})
    assert error.value.code == "SOURCE_UNREADABLE"
    return error.value


@pytest.mark.parametrize(
    ("data", "options", "line", "byte"),
    [
        (b"id,name\n1,caf\xe9\n", (("encoding", "utf-8"),), 2, 13),  # told UTF-8
        (_PLAIN_ROWS + b"70000,caf\xe9\n", (), 70_002, len(_PLAIN_ROWS) + 9),  # found UTF-8 in the first MiB
        (b"id,name\n1,caf\xc3", (("encoding", "utf-8"),), 2, 13),  # the file ends within a character
    ],
    ids=["told", "past_the_first_mib", "cut_short"],
)
def test_a_byte_that_is_not_utf8_is_refused_alike(dq_engine, data, options, line, byte, tmp_path):
    """A Latin-1 byte in a file read as UTF-8 is refused on both engines, naming the file, its line
    and byte, with the fix (Spark read U+FFFD for it; Python's csv module, reading UTF-8, fails)."""
    path = tmp_path / "l.csv"
    path.write_bytes(data)
    error = _refused_alike(dq_engine, SourceSpec("l", "csv", paths=(str(path),), options=options))
    assert f"{path} line {line}, byte {byte}: 0x{data[byte]:02X} is not UTF-8" in error.message
    assert error.hint == 'add encoding = "latin-1" to the source if it is Latin-1 (ISO-8859-1) text'


def test_a_byte_that_is_not_utf8_in_a_later_file_is_refused_alike(dq_engine, tmp_path):
    """The dialect is judged from a folder's first file; a later one holding a Latin-1 byte is
    named, with its line and byte, on both engines."""
    (tmp_path / "a.csv").write_bytes(b"id,name\n1,Zo\xc3\xab\n")
    (tmp_path / "b.csv").write_bytes(b"id,name\n2,caf\xe9\n")
    error = _refused_alike(dq_engine, SourceSpec("f", "csv", paths=(str(tmp_path / "*.csv"),)))
    assert f"{tmp_path / 'b.csv'} line 2, byte 13: 0xE9 is not UTF-8" in error.message


def test_a_quoted_line_break_told_single_line_is_refused_alike(dq_engine, tmp_path):
    """Told multiLine = false, a file whose quoted field holds a line break is refused on both
    engines (Spark split the record in two)."""
    path = tmp_path / "m.csv"
    path.write_bytes(b'id,note\n1,one\n2,"two\nlines"\n')
    error = _refused_alike(dq_engine, SourceSpec("m", "csv", paths=(str(path),), options=(("multiLine", "false"),)))
    assert f"{path} line 3: a quoted field holds a line break" in error.message


def test_a_quoted_line_break_past_the_first_mib_is_refused_alike(dq_engine, tmp_path):
    """A file found single-line in its first MiB with a quoted line break further on is refused on
    both engines at that record's first line, with the fix (Spark split the record in two); told
    multiLine, both read it whole, as Python's csv module does."""
    path = tmp_path / "late.csv"
    path.write_bytes(_PLAIN_ROWS + b'70000,"two\nlines"\n70001,"say ""hi"""\n')
    error = _refused_alike(dq_engine, SourceSpec("late", "csv", paths=(str(path),)))
    assert f"{path} line 70002: a quoted field holds a line break" in error.message
    assert error.hint == "add multiLine = true to the source: both engines then read records over several lines"
    spec = SourceSpec("late", "csv", paths=(str(path),), options=(("multiLine", True),))
    rows = run_one(dq_engine, read(dq_engine, spec), {"late": spec})
    assert len(rows) == 70_002 and rows[-2:] == [
        {"id": 70_000, "name": "two\nlines"},
        {"id": 70_001, "name": 'say "hi"'},
    ]


def test_a_field_quoted_in_part_is_refused_on_duckdb_with_the_reading_both_engines_share(duckdb_engine, tmp_path):
    """A field quoted in part ("w" v) does not split by the CSV standard: DuckDB's reader refuses
    the file (Spark reads it by its own rules), saying so, with the option both engines read alike."""
    path = tmp_path / "part.csv"
    path.write_bytes(b'a,b\n1,2\n3,"w" v\n')
    spec = SourceSpec("part", "csv", paths=(str(path),), options=(("delimiter", ","), ("quote", '"')))
    error = _refused_alike(duckdb_engine, spec)
    assert error.message.endswith(
        'some lines do not split by the CSV standard with its delimiter and quote (a field quoted in part, as "w" v, is one)'
    )
    assert error.hint == 'quote = "" reads every quote as text, on both engines alike; or quote such fields whole'


def test_quotes_read_as_text_alike(dq_engine, tmp_path):
    """The hint's reading: with quote = "" a quote is text wherever it stands, on both engines."""
    path = tmp_path / "part.csv"
    path.write_bytes(b'a,b\n1,2\n3,"w" v\n5, "x"\n')
    spec = SourceSpec("part", "csv", paths=(str(path),), options=(("quote", ""),))
    rows = run_one(dq_engine, read(dq_engine, spec), {"part": spec})
    assert rows == [{"a": 1, "b": "2"}, {"a": 3, "b": '"w" v'}, {"a": 5, "b": ' "x"'}]


def test_a_blank_before_a_quote_is_a_warning_naming_its_line(tmp_path):
    """``3, "x"``: Spark reads ` "x"`, DuckDB `x`, and no option of either reads it as the other
    does: a located warning, with the reading both share; a quote after text (`a "q"`) is none."""
    path = tmp_path / "blank.csv"
    path.write_bytes(b'a,b\n1,"y"\n2,a "q"\n3, "x"\n')
    with pytest.warns(LocatedWarning) as caught:
        csv_dialect(SourceSpec("blank", "csv", paths=(str(path),)))
    [warning] = caught
    error = warning.message.error
    assert error.code == "BLANK_BEFORE_QUOTE" and error.message.startswith(f"{path} line 4: a blank before a quote")
    assert error.hint == 'quote = "" reads every quote as text, on both engines alike'
    (tmp_path / "clean.csv").write_bytes(b'a,b\n1,"y"\n2,a "q"\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        csv_dialect(SourceSpec("clean", "csv", paths=(str(tmp_path / "clean.csv"),)))
        csv_dialect(SourceSpec("told", "csv", paths=(str(path),), options=(("quote", ""),)))
