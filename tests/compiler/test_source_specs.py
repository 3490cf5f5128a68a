"""A source names what every engine needs to read it, or it is refused where it is built."""

from __future__ import annotations

import pytest

from gryph.client.run.runner import load_suite
from gryph.compiler.errors import InvalidInput, Location
from gryph.compiler.sources.source_specs import SourceSpec

HERE = Location("suite.dq", 3, 8)


@pytest.mark.parametrize(
    ("spec", "code", "message"),
    [
        (dict(name="t", format="table"), "SOURCE_NO_TABLE", "source 't' names no table"),
        (dict(name="t", format="table", table=""), "SOURCE_NO_TABLE", "source 't' names no table"),
        (dict(name="f", format="frame"), "SOURCE_NO_FRAME", "source 'f' has no frame"),
        (dict(name="c", format="csv"), "SOURCE_NO_PATH", "source 'c' (csv) names no file"),
        (dict(name="p", format="parquet", paths=()), "SOURCE_NO_PATH", "source 'p' (parquet) names no file"),
    ],
)
def test_an_incomplete_source_is_refused_where_it_is_declared(spec, code, message):
    # an API user may build the spec without its table, frame or file; before, each engine
    # found out on its own (Spark asked for table None)
    with pytest.raises(InvalidInput) as info:
        SourceSpec(**spec, location=HERE)
    assert (info.value.code, info.value.exit_code, info.value.message) == (code, 2, message)
    assert info.value.location == HERE


def test_complete_sources_are_built():
    assert SourceSpec("t", "table", table="db.t").table_name == "db.t"
    assert SourceSpec("c", "csv", paths=("a.csv",)).paths == ("a.csv",)
    assert SourceSpec("f", "frame", frame=[]).frame == []


def test_an_empty_table_name_in_a_suite_points_at_its_line():
    with pytest.raises(InvalidInput) as info:
        load_suite('suite s\n\nsource t = table("")\nprofiling p on t: select count(*) as n from t\n')
    assert info.value.code == "SOURCE_NO_TABLE"
    assert info.value.location is not None and info.value.location.line == 3
