"""A column read as text because of a few values: a data error at the source, not a type error
of the suite.

Without declared types a csv's column is a number only when every value is one: one ``n/a``
among a day's prices makes the column text, and ``price > 3`` no longer type-checks. When a
type error names such a column, and some of its values are numbers (or times), the data is what
changed: the error is ``SOURCE_READ_AS_TEXT`` at the source's declaration, naming the column,
the values that are not numbers, and the fix (a null marker, or declared types).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import EngineError, GryphError
from ..plan import Aggregate, Cast, Field, Filter, Limit, Named, Plan, Query, Read, Sort, SortKey, and_all, count_all
from ..plan.data_types import DOUBLE, STRING, TIMESTAMP, DataType, Kind, Schema
from ..plan.scalars import IsNull, not_
from ..spark_dialect.spark_names import quoted
from .null_markers import NULL_VALUE
from .source_specs import SourceSpec

SHOWN = 5  # values that made the column text, most frequent first
# what a column of text might have been read as, had a few values not been there
_MEANT = {"number": (DOUBLE, "double"), "time": (TIMESTAMP, "timestamp")}
# text that stands for no value in exports of R, pandas, SQL tools and spreadsheets
NULL_MARKERS = ("NA", "N/A", "n/a", "NULL", "null", "-", "")


@dataclass(frozen=True)
class Suspect:
    """A text column of a source whose types were inferred, named by a failed type check."""

    source: str
    column: str


def suspects(error: GryphError, sources: Mapping[str, SourceSpec], schemas: Mapping[str, Schema]) -> list[Suspect]:
    """The text columns of inferred sources that a ``TYPE_MISMATCH`` names in its text."""
    if error.code != "TYPE_MISMATCH" or not error.text:
        return []
    words = {word.lower() for word in re.findall(r"\w+", error.text)}
    return [
        Suspect(name, column.name)
        for name, spec in sources.items()
        if spec.kind.text_values and spec.schema is None and name in schemas  # types inferred from text
        for column in schemas[name].columns
        if column.dtype.kind is Kind.STRING and column.name.lower() in words
    ]


@dataclass(frozen=True)
class TextReading:
    """What a text column holds: the type most of its values are of (``number`` or ``time``), how
    many are, and the most frequent values that are not, each with its number of rows."""

    meant: str
    fits: int
    misfits: tuple[tuple[str, int], ...]

    @property
    def markers(self) -> tuple[str, ...] | None:
        """The values that are not of the type, when each reads as no value (``NA``, ``-``)."""
        found = tuple(value for value, _ in self.misfits)
        return found if found and all(value in NULL_MARKERS for value in found) else None

    @property
    def marker(self) -> str | None:
        """The one value that is not of the type, when it reads as no value (``NA``)."""
        return self.markers[0] if self.markers is not None and len(self.markers) == 1 else None


# a column without a value (a file of only its header): text, as both engines infer it
EMPTY = TextReading("nothing", 0, ())


def reading_plan(source: str, schema: Schema, columns: list[str]) -> Plan:
    """Per text column of ``source`` and type it might have meant, how many of its values are of
    it, and the most frequent values that are not (with how many rows hold each)."""
    read = Read(source, schema)
    queries = []
    for index, column in enumerate(columns):
        text = Field(column, STRING)
        for meant, (dtype, _) in _MEANT.items():
            fits = and_all([not_(IsNull(text)), not_(IsNull(Cast(text, dtype)))])
            misfits = and_all([not_(IsNull(text)), IsNull(Cast(text, dtype))])
            queries.append(Query(f"c{index}_{meant}_fits", Aggregate(read, (), (Named(count_all(fits), "n"),))))
            grouped = Aggregate(Filter(read, misfits), (Named(text, "value"),), (Named(count_all(), "rows"),))
            ranked = Sort(
                grouped, (SortKey(Field("rows", count_all().dtype), ascending=False), SortKey(Field("value", STRING)))
            )
            queries.append(Query(f"c{index}_{meant}_misfits", Limit(ranked, SHOWN), SHOWN))
    return Plan((), tuple(queries))


def text_reading(index: int, rows: Mapping[str, list[dict[str, Any]]]) -> TextReading | None:
    """The reading of the ``index``th column of a ``reading_plan`` from its rows (``EMPTY`` when it
    holds no value at all); None when none of its values is a number or a time."""
    fits = {meant: int(rows[f"c{index}_{meant}_fits"][0]["n"] or 0) for meant in _MEANT}
    meant = max(fits, key=lambda kind: fits[kind])
    if not fits[meant]:
        return None if rows[f"c{index}_{meant}_misfits"] else EMPTY
    misfits = tuple((str(row["value"]), int(row["rows"])) for row in rows[f"c{index}_{meant}_misfits"])
    return TextReading(meant, fits[meant], misfits)


def read_as_text(
    suspect: Suspect, spec: SourceSpec, schema: Schema, reading: TextReading | None, error: GryphError
) -> EngineError | None:
    """The data error of ``suspect``, read as ``reading``, in place of the type ``error`` it
    caused; None when none of its values is a number or a time (the column is text, and the
    suite's error stands)."""
    if reading is None:
        return None
    if reading is EMPTY:
        return EngineError(
            "SOURCE_READ_AS_TEXT",
            f"source {spec.name!r}: column {suspect.column!r} was read as {STRING} because it holds no value "
            f"to tell its type by; so {error.location}: {error.message}",
            location=spec.location,
            text=spec.as_written(),
            hint='declare its types, schema = "name type, ...": a file without rows is then read in them',
        )
    values = ", ".join(f"{value!r} ({_counted(rows, 'row')})" for value, rows in reading.misfits)
    return EngineError(
        "SOURCE_READ_AS_TEXT",
        f"source {spec.name!r}: column {suspect.column!r} was read as {STRING} because some of its values are "
        f"not {reading.meant}s: {values}, while {_counted(reading.fits, 'value')} "
        f"{'is' if reading.fits == 1 else 'are'}; so {error.location}: {error.message}",
        location=spec.location,
        text=spec.as_written(),
        # a marker only where the kind reads markers (a JSON file's values are typed, not texts)
        hint=_fix(
            schema,
            suspect.column,
            _MEANT[reading.meant][1],
            reading.marker if NULL_VALUE in spec.kind.option_names else None,
        ),
    )


def _fix(schema: Schema, column: str, type_name: str, marker: str | None) -> str:
    declared = ", ".join(
        f"{_name(c.name)} {type_name if c.name == column else _type_name(c.dtype)}" for c in schema.columns
    )
    with_types = f'declare its types, schema = "{declared}" (a value that is not one is then NULL and counted)'
    if marker is not None:
        return f'if {marker!r} means no value, add nullValue = "{marker}" to the source; or {with_types}'
    return with_types


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else quoted(name)


def _type_name(dtype: DataType) -> str:
    return str(dtype).replace(" ", "")
