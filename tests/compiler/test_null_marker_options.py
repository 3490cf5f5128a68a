"""Options of several texts: null markers only, and several of them only with declared types (the
engines infer a file's types with one marker): located SOURCE_BAD_OPTION errors otherwise."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput
from gryph.compiler.sources.null_markers import null_markers
from gryph.compiler.suites.native_suites import parse_suite_file


def _load(tmp_path, declaration: str):
    (tmp_path / "d.csv").write_text("a\n1\n", encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(f"# data\n{declaration}\n", encoding="utf-8")
    return parse_suite_file(suite), suite


def test_several_markers_with_declared_types(tmp_path):
    suite, _ = _load(tmp_path, 'source d = csv("d.csv", nullValue = ["n/a", "-", "n/a"], schema = "a double")')
    assert null_markers(suite.sources["d"]) == ("n/a", "-")  # in the order given, each once


@pytest.mark.parametrize(
    "declaration, message",
    [
        (
            'source d = csv("d.csv", nullValue = ["n/a", "-"])',
            "source 'd': several null markers ('n/a', '-') need declared types: the engines infer a file's types "
            "with one",
        ),
        ('source d = csv("d.csv", delimiter = [";", ","])', "source 'd': option delimiter takes one value, not a list"),
    ],
)
def test_a_list_where_it_cannot_be_is_a_located_error(tmp_path, declaration, message):
    with pytest.raises(InvalidInput) as caught:
        _load(tmp_path, declaration)
    _, suite = _load(tmp_path, 'source d = csv("d.csv")')
    error = caught.value
    assert (error.code, error.exit_code, error.message) == ("SOURCE_BAD_OPTION", 2, message)
    assert (error.location.file, error.location.line, error.location.column) == (str(suite), 2, 1)
