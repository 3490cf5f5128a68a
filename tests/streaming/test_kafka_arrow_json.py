"""JSON values parsed by Arrow's reader (kafka/arrow_json.py) give the rows the SQL parse gives
(kafka/values.py), or the reader declines and the SQL parses: by hand, and differentially over
generated values and batches."""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import NamedTuple

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gryph.compiler.sources.declared_schemas import parse_schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.local_backend.engine import DuckDBEngine
from gryph.local_backend.sources.kafka.arrow_json import arrow_parsed, arrow_rows
from gryph.local_backend.sources.kafka.values import RAW_VALUE, parsed_messages

SCHEMA = "id bigint, ts timestamp, user string, score double, ok boolean, day date"
SPEC = SourceSpec(
    "clicks", "kafka", ("127.0.0.1:9092",), options=(("topic", "t"), ("format", "json")), schema=parse_schema(SCHEMA)
)
NONE = (None,) * 6


def _raw(values: list[bytes | None]) -> pa.Table:
    """Messages as the Kafka reader hands them over: the value's text and the broker's columns."""
    count = len(values)
    text = pa.array(values, pa.binary()).cast(pa.string())
    return pa.table(
        {
            RAW_VALUE: text,
            "key": pa.nulls(count, pa.string()),
            "topic": pa.array(["t"] * count, pa.string()),
            "partition": pa.array([0] * count, pa.int64()),
            "offset": pa.array(range(count), pa.int64()),
            "timestamp": pa.array(range(count), pa.int64()).cast(pa.timestamp("ms")),
        }
    )


def _sql(raw: pa.Table, members: pa.Table | None) -> pa.Table:
    """The SQL parse: of the values, or of Arrow's members (times and dates converted)."""
    engine = DuckDBEngine()
    try:
        engine.connection.register("raw", raw if members is None else members)
        relation = parsed_messages(SPEC, "raw", members_read=members is not None)
        return engine.connection.sql(f"SELECT * FROM {relation}").to_arrow_table()
    finally:
        engine.close()


def _rows(table: pa.Table) -> list[tuple]:
    """The table's rows as DuckDB gives them (Arrow's own conversion fails on DuckDB's infinite times)."""
    with duckdb.connect() as con:
        con.register("rows", table)
        return con.execute("SELECT * FROM rows").fetchall()


class Parsed(NamedTuple):
    arrow: list[tuple] | None  # Arrow alone (arrow_rows); None: it declined
    members: list[tuple] | None  # Arrow's members, times converted by the SQL; None: Arrow declined
    sql: list[tuple]  # the SQL parse of the values


def _parsed(values: list[bytes | None]) -> Parsed:
    """One batch parsed each way; where Arrow's table answers, its columns are the SQL's."""
    raw = _raw(values)
    exact = _sql(raw, None)
    members = arrow_parsed(SPEC, raw, RAW_VALUE)
    if members is None:
        return Parsed(None, None, _rows(exact))
    finished = arrow_rows(SPEC, members)
    if finished is not None:
        assert finished.schema == exact.schema
    return Parsed(None if finished is None else _rows(finished), _rows(_sql(raw, members)), _rows(exact))


def _same(a: list[tuple], b: list[tuple]) -> bool:
    """Equal rows, NaN equal to NaN."""

    def key(row: tuple) -> tuple:
        return tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row)

    return [key(r) for r in a] == [key(r) for r in b]


def test_values_arrow_reads_give_the_rows_written_by_hand():
    values = [
        b'{"id": 1, "ts": "2024-01-02T03:04:05", "user": "ann", "score": 1.5, "ok": true, "day": "2024-01-02"}',
        ' \t{"id": -9223372036854775808, "ts": null, "user": "Zoë 🚀", "score": null, "ok": false}\r\n'.encode(),
        b'{"id": 6, "extra": {"nested": [1, NaN, "x"]}, "score": 2, "user": "tab\\tline\\nquote\\"\\u00e9"}',
        b'{"id": 7, "ts": "2024-01-02T03:04:05+01:00", "score": -Infinity, "\\u0075ser": "escaped key"}',
        b'{"id": 8, "ts": "yesterday", "user": "a time that is no time: malformed"}',
        b'{"id": 9, "day": "2024-02-30"}',  # no such day: malformed
        b"{}",
    ]
    parsed = _parsed(values)
    broker = [(None, "t", 0, o, dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=o)) for o in range(len(values))]
    by_hand = [
        (1, dt.datetime(2024, 1, 2, 3, 4, 5), "ann", 1.5, True, dt.date(2024, 1, 2), False),
        (-(2**63), None, "Zoë 🚀", None, False, None, False),
        (6, None, 'tab\tline\nquote"é', 2.0, None, None, False),
        (7, dt.datetime(2024, 1, 2, 2, 4, 5), "escaped key", -math.inf, None, None, False),
        (*NONE, True),
        (*NONE, True),
        (*NONE, False),
    ]
    expected = [(*row[:6], *where, row[6]) for row, where in zip(by_hand, broker, strict=True)]
    assert parsed.members == parsed.sql == expected
    assert parsed.arrow is None  # a time with a zone, and one that is no time: the SQL converts them
    plain = [0, 1, 2, 6]  # times without a zone, or none: Arrow converts them itself
    good = _parsed([values[i] for i in plain])
    by_hand_again = [(*by_hand[i][:6], None, "t", 0, o, broker[o][4], False) for o, i in enumerate(plain)]
    assert good.arrow == good.members == good.sql == by_hand_again


@pytest.mark.parametrize(
    "values",
    [
        [b'{"id": "12"}'],  # a string where a bigint is declared
        [b'{"id": 1.5}'],
        [b'{"id": 1.0}'],
        [b'{"id": 1e2}'],
        [b'{"id": 9223372036854775808}'],  # beyond 64 bits
        [b'{"user": 12}'],  # a number where a string is declared: the SQL gives its text
        [b'{"user": {"a": 1}}'],  # an object where a string is declared: the SQL gives compact JSON
        [b'{"ts": 1700000000}'],  # seconds since 1970: the SQL converts them
        [b'{"ok": "true"}'],
        [b'{"score": "NaN"}'],  # the word, quoted: the SQL converts it
        [b'{"id": 1, "id": 2}'],  # a member twice
        [b"[1]", b'{"id": 1}'],
        [b'{"id": 1} {"id": 2}'],  # two objects in one value
        [b'{"id": 1', b'}{"id": 2}'],  # an object split over two values: each malformed
        [b'{"id": 1}', None],  # a message without a value
        [b'{"id": 1} x'],
        [b'\x0c{"id": 1}'],  # a form feed is not JSON's blank
        [b'{"user": "\\ud800"}'],  # half a surrogate pair
        [],
    ],
)
def test_arrow_declines_what_it_cannot_read_as_the_sql_does(values):
    parsed = _parsed(values)
    assert parsed.members is None and parsed.arrow is None
    assert len(parsed.sql) == len(values)


@pytest.mark.parametrize(
    "time",
    [
        "2024-01-02T03",  # an hour alone: Arrow reads it, DuckDB does not
        "2024-01-02 03",
        "2024-01-02T03:04:05Z",  # a zone: the SQL converts it
        "2024-01-02T03:04:05+01:00",
        "2024-01-02T03:04:05.1234567",  # beyond microseconds
        "2024-1-2",  # DuckDB reads it, Arrow does not
        "2024-01-02T24:00:00",
    ],
)
def test_times_arrow_does_not_read_as_duckdb_does_are_left_to_the_sql(time):
    parsed = _parsed([json.dumps({"id": 1, "ts": time}).encode()])
    assert parsed.arrow is None
    assert parsed.members == parsed.sql


# members: the declared names, an undeclared one, and a name that differs only in case
_NAMES = st.sampled_from(["id", "ts", "user", "score", "ok", "day", "extra", "ID"])


@st.composite
def _time_text(draw) -> str:
    """A text shaped like an ISO 8601 time, well or badly: fields of one to four digits and out
    of range, separators T, t or a blank, fractions of up to nine digits, zones."""

    def digits(width: int) -> str:
        return draw(
            st.sampled_from([f"{draw(st.integers(0, 10**width - 1)):0{width}d}", str(draw(st.integers(0, 99)))])
        )

    text = f"{digits(4)}-{digits(2)}-{digits(2)}"
    for part in (draw(st.sampled_from(["T", " ", "t"])) + digits(2), ":" + digits(2), ":" + digits(2)):
        if draw(st.booleans()):
            break
        text += part
    if draw(st.booleans()):
        text += "." + "".join(str(draw(st.integers(0, 9))) for _ in range(draw(st.integers(0, 9))))
    return text + draw(st.sampled_from(["", "", "", "Z", "+01:00", "-0530", "+01", " UTC", " "]))


_TIMES = st.one_of(_time_text(), st.sampled_from(["2024-01-02", "2024-02-30", "infinity", "epoch", "now", ""]))
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    _TIMES,
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
_LITERALS = st.sampled_from(
    [
        "NaN",
        "Infinity",
        "-Infinity",
        "Inf",
        "-Inf",
        "nan",
        "1e400",
        "-0",
        "0.0e0",
        '"\\u0000"',
        '"\\ud83d\\ude80"',
        "[]",
        "{}",
    ]
)
# what a declared member mostly holds: its column's JSON type (or null), so that Arrow answers often
_TYPED = {
    "id": st.integers(min_value=-(2**63), max_value=2**63 - 1).map(json.dumps),
    "ts": _TIMES.map(json.dumps),
    "day": _TIMES.map(json.dumps),
    "user": st.text(max_size=8).map(json.dumps),
    "score": st.one_of(
        st.integers(-(2**70), 2**70).map(json.dumps),
        st.floats().map(
            lambda f: repr(f) if math.isfinite(f) else {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(f)]
        ),
    ),
    "ok": st.booleans().map(json.dumps),
}


def _member_value(name: str):
    anything = st.one_of(_JSON.map(json.dumps), _LITERALS)
    return st.one_of(*[_TYPED[name]] * 8, st.just("null"), anything) if name in _TYPED else anything


@st.composite
def _value(draw) -> bytes:
    """A JSON object of such members, written with varied blanks and literal forms, sometimes
    broken: cut short, doubled or prefixed."""
    names = draw(st.lists(_NAMES, max_size=6, unique=draw(st.sampled_from([True] * 9 + [False]))))
    members = [(name, draw(_member_value(name))) for name in names]
    blank = draw(st.sampled_from(["", " ", "\t", "\r\n", "  \n"]))
    text = blank + "{" + ",".join(f"{blank}{json.dumps(name)}:{blank}{value}" for name, value in members) + "}" + blank
    damage = draw(st.sampled_from(["none"] * 12 + ["cut", "double", "prefix"]))
    if damage == "cut":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif damage == "double":
        text += text
    elif damage == "prefix":
        text = draw(st.sampled_from(["x", "[", '"', "\x0c"])) + text
    return text.encode()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_value(), min_size=1, max_size=5))
def test_arrow_gives_the_sql_rows_whenever_it_answers(values):
    parsed = _parsed(values)
    for rows in (parsed.arrow, parsed.members):
        if rows is not None:
            assert _same(rows, parsed.sql), values
