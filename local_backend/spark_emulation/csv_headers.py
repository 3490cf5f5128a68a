"""A CSV header's column names as Spark makes them from the header's fields.

DuckDB trims a header's names, names an empty field ``column3`` and a repeated name ``a_1``; Spark
keeps each field as read (``' cpi'``), names an empty one ``_c3`` and suffixes every occurrence of
a repeated name with its position (``a0``, ``a1``), so a suite written against one engine named
columns the other lacked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence


def spark_header(fields: Sequence[str], null_markers: Collection[str] = ()) -> list[str]:
    """The names Spark gives a header of ``fields`` as read (CSVUtils.makeSafeHeader, with
    ``spark.sql.caseSensitive`` off, its default): an empty field, or one equal to a null marker,
    is ``_c{index}``; a name found more than once, in any case, is ``{name}{index}`` wherever it is;
    whitespace stays (``ignoreLeadingWhiteSpace`` and its trailing twin are off when reading)."""
    # Spark counts every field, null markers among them, when it looks for repeats
    repeated = {name for name, count in Counter(field.lower() for field in fields).items() if count > 1}
    return [
        f"_c{index}"
        if not field or field in null_markers
        else f"{field}{index}"
        if field.lower() in repeated
        else field
        for index, field in enumerate(fields)
    ]
