"""A text file's declared types: dirty data is data.

A csv, tsv or json source with a declared schema is read as text and each column cast to its declared
type as the plan casts text (Spark's ``try_cast`` on both engines, local_backend/sql/scalars.py and
client/spark/compile/scalars.py), so a value that does not parse is NULL in its column, never an
engine error. Such values are counted: one more plan over the same files read as text, each row
numbered in its file, gives per column how many values did not parse and the first few of them
with their row numbers. Checks read the counts as ``metrics["source:NAME"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..plan import Cast, Field, Filter, Limit, Named, Project, Query, Read, Sort, SortKey, and_all, count_all
from ..plan.data_types import INTEGER, STRING, Column, Kind, Schema
from ..plan.relations import Aggregate
from ..plan.scalars import IsNull, Scalar, not_
from .source_specs import SourceSpec

TEXT_FORMATS = ("csv", "tsv")
# JSON fields of declared types are read as text alike (a number or an object as its JSON text)
DECLARED_TEXT_FORMATS = (*TEXT_FORMATS, "json")
ROW = "__gryph_row"  # a row's number in its file, added by the engine reading the text
EXAMPLES = 5  # values shown per column
METRICS_PREFIX = "source:"  # metrics["source:orders"]
METRIC_KEYS = ("malformed", "malformed_by_column")
# per column with values that did not parse: {"type": "double", "malformed": 2, "examples": [...]}
Report = dict[str, dict[str, Any]]


def declared_text(spec: SourceSpec) -> bool:
    """Whether ``spec`` is text read into declared types, whose values may not parse."""
    return spec.format in DECLARED_TEXT_FORMATS and spec.schema is not None


def counts_malformed(spec: SourceSpec) -> bool:
    """Whether a run counts ``spec``'s values that do not parse (a stream's batch counts none)."""
    return declared_text(spec) and spec.stamp is None


def metrics_name(source: str) -> str:
    """The name checks read a source's counts under: ``metrics["source:orders"]``."""
    return f"{METRICS_PREFIX}{source}"


def typed_sources(sources: Mapping[str, SourceSpec]) -> list[str]:
    """The names of the sources whose values are counted when they do not parse."""
    return [name for name, spec in sources.items() if counts_malformed(spec)]


def text_spec(spec: SourceSpec) -> SourceSpec:
    """``spec``'s files read as text: every declared column a string, each row numbered in its file."""
    assert spec.schema is not None, "a source read into declared types"
    text = Schema(tuple(Column(c.name, STRING) for c in spec.schema.columns))
    return replace(spec, name=f"__gryph_text_{spec.name}", schema=text, row_number=ROW)


def _castable(spec: SourceSpec) -> list[Column]:
    assert spec.schema is not None
    return [c for c in spec.schema.columns if c.dtype.kind is not Kind.STRING]


def _counts(prefix: str) -> str:
    return f"{prefix}counts"


def _examples(prefix: str, column: int) -> str:
    return f"{prefix}examples{column}"


def malformed_queries(spec: SourceSpec, prefix: str) -> tuple[tuple[Query, ...], SourceSpec]:
    """The queries (named from ``prefix``) counting ``spec``'s values that do not parse as their
    declared types, with the first ``EXAMPLES`` of each column by row number, and the text source
    they read. A run runs them with its own queries: the same statement or action."""
    text = text_spec(spec)
    assert text.schema is not None
    read = Read(text.name, Schema((*text.schema.columns, Column(ROW, INTEGER))))
    columns = _castable(spec)
    malformed = [_malformed(column) for column in columns]
    counts = Aggregate(read, (), tuple(Named(count_all(m), f"c{i}") for i, m in enumerate(malformed)))
    queries = [Query(_counts(prefix), counts)] if columns else []
    for i, (column, bad) in enumerate(zip(columns, malformed, strict=True)):
        # rows of several files share numbers: their values order them alike on both engines
        order = (SortKey(Field(ROW, INTEGER)), SortKey(Field(column.name, STRING)))
        first = Limit(Sort(Filter(read, bad), order), EXAMPLES)
        shown = Project(first, (Named(Field(ROW, INTEGER), "row"), Named(Field(column.name, STRING), "value")))
        queries.append(Query(_examples(prefix, i), shown, EXAMPLES))
    return tuple(queries), text


def _malformed(column: Column) -> Scalar:
    """A value that is there as text and NULL once cast to the column's type."""
    text = Field(column.name, STRING)
    return and_all([not_(IsNull(text)), IsNull(Cast(text, column.dtype))])


def malformed_report(spec: SourceSpec, prefix: str, rows: Mapping[str, list[dict[str, Any]]]) -> Report:
    """Per declared column whose values did not all parse: how many did not, and the first of them
    (``{"row": 3, "value": "n/a"}``) by row number, from the rows of ``malformed_queries``."""
    report: Report = {}
    counts = rows[_counts(prefix)][0] if rows.get(_counts(prefix)) else {}
    for i, column in enumerate(_castable(spec)):
        count = int(counts.get(f"c{i}") or 0)
        if count:
            examples = [{"row": row["row"], "value": row["value"]} for row in rows.get(_examples(prefix, i), [])]
            report[column.name] = {"type": str(column.dtype), "malformed": count, "examples": examples}
    return report


def source_metrics(spec: SourceSpec, report: Report) -> dict[str, object]:
    """What checks read as ``metrics["source:NAME"]``: the values that did not parse, in all and
    per declared column (0 for a column whose values all parsed, and for text columns)."""
    assert spec.schema is not None
    by_column = {c.name: int(report.get(c.name, {}).get("malformed", 0)) for c in spec.schema.columns}
    return {"malformed": sum(by_column.values()), "malformed_by_column": by_column}


@dataclass(frozen=True)
class MalformedCounts:
    """The queries counting the values of a suite's sources that are not of their declared types,
    the text sources they read, and each source's query prefix."""

    queries: tuple[Query, ...]
    texts: dict[str, SourceSpec]
    prefixes: dict[str, str]
    # each query of a column's first bad values: the query and column of its count
    examples: dict[str, tuple[str, str]]

    @classmethod
    def of(cls, sources: Mapping[str, SourceSpec]) -> MalformedCounts:
        queries: tuple[Query, ...] = ()
        texts: dict[str, SourceSpec] = {}
        prefixes: dict[str, str] = {}
        examples: dict[str, tuple[str, str]] = {}
        for number, name in enumerate(typed_sources(sources)):
            prefix = f"malformed{number}_"
            found, text = malformed_queries(sources[name], prefix)
            if found:  # a source of text columns only has no value that does not parse
                queries += found
                texts[text.name] = text
                prefixes[name] = prefix
                examples.update(
                    (_examples(prefix, i), (_counts(prefix), f"c{i}")) for i in range(len(_castable(sources[name])))
                )
        return cls(queries, texts, prefixes, examples)

    def report(self, sources: Mapping[str, SourceSpec], rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, Report]:
        """Per source with values that did not parse, its ``malformed_report``."""
        found = {name: malformed_report(sources[name], prefix, rows) for name, prefix in self.prefixes.items()}
        return {name: report for name, report in found.items() if report}
