"""A text file's types and null marker, found for ``gryph suggest`` and written into its declaration.

A csv exported from R writes ``NA`` for no value, which makes every numeric column text when its
types are inferred: a suite suggested from that would check "2 to 4 characters long" where it
means numbers, and break on the first day a value is missing. The text columns whose values are
all numbers (or times) but one null marker (``NA``, ``N/A``, ``n/a``, ``NULL``, ``null``, ``-``)
tell the marker, and the file is read again with it; the types then inferred are declared, so
tomorrow's file is read in them whatever it holds (a value that is not of its type is NULL and
counted: compiler/sources/typed_text.py).
"""

from __future__ import annotations

from dataclasses import replace

from gryph.compiler.engine import Engine
from gryph.compiler.plan.data_types import Kind, Schema
from gryph.compiler.sources.read_as_text import reading_plan, text_reading
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.typed_text import TEXT_FORMATS
from gryph.compiler.suites.suite import Suite

from ..run import runner
from .source_declarations import DECLARABLE


def with_types(spec: SourceSpec, engine: Engine) -> SourceSpec:
    """``spec`` with its null marker (when it holds one) and its types declared, for a csv or tsv
    whose types would be inferred; any other source as it is."""
    if spec.format not in TEXT_FORMATS or spec.schema is not None:
        return spec
    if spec.option("nullValue") is None:
        marker = null_marker(spec, engine)
        if marker is not None:
            spec = replace(spec, options=(*spec.options, ("nullValue", marker)))
    schema = _schema(spec, engine)
    if not schema.columns or any(c.dtype.kind not in DECLARABLE for c in schema.columns):
        return spec
    return replace(spec, schema=schema)


def null_marker(spec: SourceSpec, engine: Engine) -> str | None:
    """The one null marker the text columns of ``spec`` hold among numbers or times, if they agree."""
    schema = _schema(spec, engine)
    texts = [c.name for c in schema.columns if c.dtype.kind is Kind.STRING]
    if not texts:
        return None
    rows = engine.run(reading_plan(spec.name, schema, texts), {spec.name: spec})
    readings = [text_reading(index, rows) for index in range(len(texts))]
    markers = {reading.marker for reading in readings if reading is not None}
    # a column of numbers and other words is no evidence of a marker; two markers are not one
    return markers.pop() if len(markers) == 1 and None not in markers else None


def _schema(spec: SourceSpec, engine: Engine) -> Schema:
    return runner.source_schemas(Suite(spec.name, {spec.name: spec}, []), engine)[spec.name]
