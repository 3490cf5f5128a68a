"""Task metrics' ``rowsCounter``: the rows of each source, counted in the aggregate query that
already scans it for the rules (a ``count(*)`` more in a scan that happens anyway). A source no
rule aggregates directly (one read only through a join, such as an accuracy target) is not
counted: counting it would cost a scan of its own, except a stream's batch, whose rows and
malformed messages a stream always reports."""

from __future__ import annotations

from collections.abc import Mapping

from ..plan import Field, Read, count_all
from ..plan.data_types import BOOLEAN, Schema
from ..results import ResultRow
from .query_collector import Collector, Results, ValueRef


def count_rows_read(
    sources: Mapping[str, object], schemas: Mapping[str, Schema], collector: Collector, streams: tuple[str, ...] = ()
) -> dict[str, ValueRef]:
    """A row count per declared source whose rows the collected plan already aggregates, and per
    stream source."""
    reads = {name: Read(name, schemas[name]) for name in sources if name in schemas}
    return {
        name: collector.value(read, count_all())
        for name, read in reads.items()
        if name in streams or collector.aggregates(read)
    }


def count_malformed(
    streams: tuple[str, ...], schemas: Mapping[str, Schema], collector: Collector, flag: str
) -> dict[str, ValueRef]:
    """Per stream source with the column ``flag`` (a message that did not parse), how many rows
    have it, in the scan that counts the batch's rows."""
    return {
        name: collector.value(Read(name, schemas[name]), count_all(filter=Field(flag, BOOLEAN)))
        for name in streams
        if flag in schemas[name]
    }


def rows_read(counters: Mapping[str, ValueRef], rows_by_query: dict[str, list[ResultRow]]) -> dict[str, int]:
    results = Results(rows_by_query)
    return {name: results.value(ref) or 0 for name, ref in counters.items()}
