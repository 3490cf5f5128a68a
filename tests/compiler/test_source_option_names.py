"""A source's options are the ones its kind takes: a typo (`delimeter`, `nulValue`) or an option
no engine honours for the kind is a located BAD_SOURCE error with the closest name, never an
option read as nothing; the rules reading the source are not blamed for it too."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import InvalidInput, InvalidInputs
from gryph.compiler.suites.native_suites import parse_suite_file


def _parse(tmp_path, declaration: str):
    suite = tmp_path / "s.dq"
    suite.write_text(f'suite s\n{declaration}\nmeasure "n": select count(*) from o\n', encoding="utf-8")
    return parse_suite_file(suite)


@pytest.mark.parametrize(
    "declaration, key, hint",
    [
        ('source o = csv("d.csv", delimeter = ";")', "delimeter", "did you mean 'delimiter'?"),
        ('source o = csv("d.csv", nulValue = "n/a")', "nulValue", "did you mean 'nullValue'?"),
        ('source o = tsv("d.tsv", Header = false)', "Header", "did you mean 'header'?"),
        ('source o = json("d.json", nullValue = "n/a")', "nullValue", "known names: multiLine"),
        ('source o = parquet("d.parquet", header = true)', "header", "parquet(...) takes no option but schema"),
        ('source o = table("main.t", version = 1)', "version", "table(...) takes no options"),
        ('source o = delta("lake/t", versoin = 1)', "versoin", "did you mean 'version'?"),
        (
            'source o = sqlite("x.db", table = "t", tabel = "u")',
            "tabel",
            "did you mean 'table'?",
        ),
    ],
)
def test_an_option_the_kind_does_not_take_is_located_with_the_closest(tmp_path, declaration, key, hint):
    with pytest.raises(InvalidInput) as caught:
        _parse(tmp_path, declaration)
    error = caught.value
    # one error: the measure reading the refused source is not reported as reading an unknown one
    assert not isinstance(error, InvalidInputs) or len(error.errors) == 1
    kind = declaration.split("= ", 1)[1].split("(", 1)[0]
    assert (error.code, error.location.line, error.text, error.hint) == ("BAD_SOURCE", 2, key, hint)
    assert error.message == f"source 'o': {kind}(...) has no option {key!r}"


def test_every_option_a_delimited_text_file_takes_is_accepted(tmp_path):
    declaration = (
        'source o = csv("d.csv", delimiter = ";", quote = "\'", escape = "\\\\", comment = "#", header = true, '
        'encoding = "utf-8", multiLine = false, nullValue = "NA", inferSchema = true)'
    )
    options = dict(_parse(tmp_path, declaration).sources["o"].options)
    assert set(options) == {
        "delimiter",
        "quote",
        "escape",
        "comment",
        "header",
        "encoding",
        "multiLine",
        "nullValue",
        "inferSchema",
    }
    spark_spellings = 'source o = csv("d.csv", sep = ";", charset = "latin-1")'
    assert dict(_parse(tmp_path, spark_spellings).sources["o"].options) == {"sep": ";", "charset": "latin-1"}
    assert dict(_parse(tmp_path, 'source o = json("d.json", multiLine = true)').sources["o"].options) == {
        "multiLine": True
    }
