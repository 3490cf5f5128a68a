"""Spark's names for a CSV header's fields (CSVUtils.makeSafeHeader), worked out by hand."""

from __future__ import annotations

import pytest

from gryph.local_backend.spark_emulation.csv_headers import spark_header


@pytest.mark.parametrize(
    ("fields", "markers", "names"),
    [
        (["id", "name"], (), ["id", "name"]),
        # every occurrence of a repeat is suffixed with its position, whatever its case
        (["a", "a", "A", "b"], (), ["a0", "a1", "A2", "b"]),
        # an empty field, or one that is the null marker, is _c and its position
        (["", "NA", "x"], ("NA",), ["_c0", "_c1", "x"]),
        # a marker is counted among the names when repeats are found: 'na' repeats 'NA'
        (["NA", "na"], ("NA",), ["_c0", "na1"]),
        # whitespace is part of a name: ' a' repeats no 'a'
        (["a", " a", "a "], (), ["a", " a", "a "]),
        # Java's lower case, as Python's: a final sigma is no repeat of a medial one
        (["Σσ", "ΣΣ", "Äb", "äB"], (), ["Σσ", "ΣΣ", "Äb2", "äB3"]),
    ],
)
def test_spark_header(fields, markers, names):
    assert spark_header(fields, markers) == names
