"""A column of numbers that a few values made text is the data's error, at the source, on both engines."""

from __future__ import annotations

import pytest

from gryph.client import load_suite, run
from gryph.compiler.errors import EngineError, InvalidInput


def _suite(folder, csv: str, measure: str) -> str:
    (folder / "orders.csv").write_text(csv, encoding="utf-8")
    suite = folder / "s.dq"
    suite.write_text(
        f'suite s\nsource orders = csv("orders.csv")\nmeasure "m": {measure}\ncheck "none": measures["m"] == 0\n',
        encoding="utf-8",
    )
    return str(suite)


def test_one_null_marker_among_prices_is_blamed_at_the_source(dq_engine, tmp_path):
    # by hand: 'n/a' is no number, 2.5, 4 and 10 are: price is text, so price > 3 is no comparison
    csv = "id,price\n1,2.5\n2,n/a\n3,4\n4,10\n"
    with pytest.raises(EngineError) as caught:
        run(load_suite(_suite(tmp_path, csv, "select count(*) from orders where price > 3")), dq_engine)
    error = caught.value
    assert (error.code, error.exit_code, error.location.line) == ("SOURCE_READ_AS_TEXT", 3, 2)
    assert error.message.startswith(
        "source 'orders': column 'price' was read as string because some of its values are not numbers: "
        "'n/a' (1 row), while 3 values are; so "
    )
    assert error.message.endswith("s.dq:3:48: cannot compare string with integer in '>'")
    assert error.hint == (
        "if 'n/a' means no value, add nullValue = \"n/a\" to the source; or declare its types, "
        'schema = "id integer, price double" (a value that is not one is then NULL and counted)'
    )


def test_the_most_frequent_of_many_values_are_named(dq_engine, tmp_path):
    # by hand: '-' in 3 rows, 'x' in 2, then 'a'..'e' once each (the first four, in order, make five)
    bad = ["-", "-", "-", "x", "x", "e", "d", "c", "b", "a"]
    csv = "id,price\n" + "".join(f"{i},{v}\n" for i, v in enumerate(["1.5", *bad, "7"]))
    with pytest.raises(EngineError) as caught:
        run(load_suite(_suite(tmp_path, csv, "select avg(price) from orders")), dq_engine)
    assert "not numbers: '-' (3 rows), 'x' (2 rows), 'a' (1 row), 'b' (1 row), 'c' (1 row), while 2 values are" in (
        caught.value.message
    )
    assert caught.value.hint.startswith('declare its types, schema = "id integer, price double"')


def test_a_column_of_text_keeps_the_suites_error(dq_engine, tmp_path):
    csv = "id,name\n1,ann\n2,bob\n"
    with pytest.raises(InvalidInput) as caught:
        run(load_suite(_suite(tmp_path, csv, "select count(*) from orders where name > 3")), dq_engine)
    assert (caught.value.code, caught.value.location.line) == ("TYPE_MISMATCH", 3)


def test_a_header_only_file_is_blamed_at_the_source(dq_engine, tmp_path):
    with pytest.raises(EngineError) as caught:
        run(load_suite(_suite(tmp_path, "id,price\n", "select count(*) from orders where price > 3")), dq_engine)
    error = caught.value
    assert (error.code, error.location.line) == ("SOURCE_READ_AS_TEXT", 2)
    assert error.message.startswith(
        "source 'orders': column 'price' was read as string because it holds no value to tell its type by; so "
    )
    assert error.hint == 'declare its types, schema = "name type, ...": a file without rows is then read in them'


def test_a_json_files_hint_offers_types_not_a_null_marker(dq_engine, tmp_path):
    # json(...) takes no nullValue (its values are typed JSON, not texts): the fix is its types alone
    (tmp_path / "orders.json").write_text('{"id": 1, "amount": 2.5}\n{"id": 2, "amount": "n/a"}\n', encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text('suite s\nsource orders = json("orders.json")\nmeasure "m": select sum(amount) from orders\n')
    with pytest.raises(EngineError) as caught:
        run(load_suite(str(suite)), dq_engine)
    error = caught.value
    assert (error.code, error.location.line) == ("SOURCE_READ_AS_TEXT", 2)
    assert "'n/a' (1 row), while 1 value is" in error.message
    assert error.hint == (
        'declare its types, schema = "amount double, id integer" (a value that is not one is then NULL and counted)'
    )
