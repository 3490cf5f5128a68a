"""A text file's types and null marker, found for ``gryph suggest`` and written into its declaration.

A csv exported from R writes ``NA`` for no value, which makes every numeric column text when its
types are inferred: a suite suggested from that would check "2 to 4 characters long" where it
means numbers, and break on the first day a value is missing. The text columns whose values are
all numbers (or times) but null markers (``NA``, ``N/A``, ``n/a``, ``NULL``, ``null``, ``-``)
tell the markers, and the file is read again with it; the types then inferred are declared, so
tomorrow's file is read in them whatever it holds (a value that is not of its type is NULL and
counted: compiler/sources/typed_text.py).
"""

from __future__ import annotations

from dataclasses import replace

from gryph.compiler.engine import Engine
from gryph.compiler.plan import Aggregate, Cast, Field, Named, Plan, Query, Read, and_all, count_all
from gryph.compiler.plan.data_types import BOOLEAN, DATE, DOUBLE, INTEGER, STRING, TIMESTAMP, Column, Kind, Schema
from gryph.compiler.plan.scalars import IsNull, not_
from gryph.compiler.sources.null_markers import NULL_VALUE
from gryph.compiler.sources.null_markers import null_markers as marker_option
from gryph.compiler.sources.read_as_text import EMPTY, NULL_MARKERS, reading_plan, text_reading
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.typed_text import TEXT_FORMATS
from gryph.compiler.suites.suite import Suite

from ..run import runner
from .source_declarations import DECLARABLE


def with_types(spec: SourceSpec, engine: Engine) -> SourceSpec:
    """``spec`` with its null markers (when it holds some) and its types declared, for a csv or tsv
    whose types would be inferred; any other source as it is."""
    if spec.format not in TEXT_FORMATS or spec.schema is not None:
        return spec
    if spec.option(NULL_VALUE) is None:
        markers = null_markers(spec, engine)
        if markers:
            spec = replace(spec, options=(*spec.options, (NULL_VALUE, markers[0] if len(markers) == 1 else markers)))
    # the engines infer types with one marker; with several, the text is cast as declared types are
    schema = _schema(spec, engine) if len(marker_option(spec)) < 2 else _cast_types(spec, engine)
    if not schema.columns or any(c.dtype.kind not in DECLARABLE for c in schema.columns):
        return spec
    return replace(spec, schema=schema)


def null_markers(spec: SourceSpec, engine: Engine) -> tuple[str, ...]:
    """The null markers the text columns of ``spec`` hold among numbers or times, in the order of
    ``NULL_MARKERS``: none when a column of them holds other words too."""
    schema = _schema(spec, engine)
    texts = [c.name for c in schema.columns if c.dtype.kind is Kind.STRING]
    if not texts:
        return ()
    rows = engine.run(reading_plan(spec.name, schema, texts), {spec.name: spec})
    readings = [text_reading(index, rows) for index in range(len(texts))]
    found = [reading.markers for reading in readings if reading is not None and reading is not EMPTY]
    # a column of numbers and other words is no evidence of a marker
    if not found or any(markers is None for markers in found):
        return ()
    return tuple(m for m in NULL_MARKERS if any(m in markers for markers in found if markers is not None))


# what a column of text is declared as: the first type all its values cast to, as Spark infers
_CANDIDATES = (INTEGER, DOUBLE, BOOLEAN, DATE, TIMESTAMP)


def _cast_types(spec: SourceSpec, engine: Engine) -> Schema:
    """Each column's type read as text with ``spec``'s null markers NULL: the first of
    ``_CANDIDATES`` every value casts to (as declared types cast), else string."""
    texts = Schema(tuple(Column(c.name, STRING) for c in _schema(_without_markers(spec), engine).columns))
    read = Read(spec.name, texts)
    counts = [Named(count_all(not_(IsNull(Field(c.name, STRING)))), f"n{i}") for i, c in enumerate(texts.columns)]
    for i, column in enumerate(texts.columns):
        text = Field(column.name, STRING)
        counts += [
            Named(count_all(and_all([not_(IsNull(text)), IsNull(Cast(text, dtype))])), f"c{i}_{k}")
            for k, dtype in enumerate(_CANDIDATES)
        ]
    row = engine.run(
        Plan((), (Query("types", Aggregate(read, (), tuple(counts))),)), {spec.name: replace(spec, schema=texts)}
    )
    found = row["types"][0]
    return Schema(
        tuple(
            Column(c.name, next((t for k, t in enumerate(_CANDIDATES) if not found[f"c{i}_{k}"]), STRING))
            if found[f"n{i}"]
            else c
            for i, c in enumerate(texts.columns)
        )
    )


def _without_markers(spec: SourceSpec) -> SourceSpec:
    return replace(spec, options=tuple((key, value) for key, value in spec.options if key != NULL_VALUE))


def _schema(spec: SourceSpec, engine: Engine) -> Schema:
    return runner.source_schemas(Suite(spec.name, {spec.name: spec}, []), engine)[spec.name]
