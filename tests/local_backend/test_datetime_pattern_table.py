"""The one table of datetime pattern letters (compiler/spark_dialect/datetime_patterns.py's FIELDS):
DuckDB's formatter writes each field with its strftime directive, Griffin's placeholders with
its Python writer; the two give the same text."""

from datetime import datetime

import duckdb
import pytest

from gryph.compiler.spark_dialect.datetime_patterns import FIELDS
from gryph.local_backend.spark_emulation.datetime_format import strftime_format

# an evening (hour 22: 10 PM) and a midnight (hour 0: 12 AM), with day-of-year 318 and 5
MOMENTS = [datetime(2023, 11, 14, 22, 13, 20, 123456), datetime(2024, 1, 5, 0, 4, 9, 7)]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
def test_duckdb_writes_every_field_as_the_table_writes_it(moment):
    con = duckdb.connect()
    for field, written in FIELDS.items():
        (got,) = con.execute("SELECT strftime(CAST(? AS TIMESTAMP), ?)", [moment, strftime_format(field)]).fetchone()
        assert got == written.write(moment), field


def test_the_fields_by_hand():
    evening, midnight = MOMENTS
    pattern = ["yyyy", "yy", "M", "MM", "MMM", "MMMM", "d", "dd", "D", "DDD", "E", "EEE", "EEEE"]
    assert [FIELDS[f].write(evening) for f in pattern] == [
        "2023", "23", "11", "11", "Nov", "November", "14", "14", "318", "318", "Tue", "Tue", "Tuesday",
    ]  # fmt: skip
    clock = ["H", "HH", "h", "hh", "a", "m", "mm", "s", "ss", "SSS", "SSSSSS"]
    assert [FIELDS[f].write(midnight) for f in clock] == [
        "0", "00", "12", "12", "AM", "4", "04", "9", "09", "000", "000007",
    ]  # fmt: skip
    assert [FIELDS[f].write(evening) for f in clock] == [
        "22", "22", "10", "10", "PM", "13", "13", "20", "20", "123", "123456",
    ]  # fmt: skip
    assert FIELDS["D"].write(midnight) == "5" and FIELDS["DDD"].write(midnight) == "005"
