"""Task metrics' ``rowsCounter``: the rows of each source, counted in the aggregate query that
already scans it for the rules (a ``count(*)`` more in a scan that happens anyway). A source no
rule aggregates directly (one read only through a join, such as an accuracy target) is not
counted: counting it would cost a scan of its own."""

from __future__ import annotations

from collections.abc import Mapping

from ..plan import Read, count_all
from ..plan.data_types import Schema
from ..results import ResultRow
from .query_collector import Collector, Results, ValueRef


def count_rows_read(
    sources: Mapping[str, object], schemas: Mapping[str, Schema], collector: Collector
) -> dict[str, ValueRef]:
    """A row count per declared source whose rows the collected plan already aggregates."""
    reads = {name: Read(name, schemas[name]) for name in sources if name in schemas}
    return {name: collector.value(read, count_all()) for name, read in reads.items() if collector.aggregates(read)}


def rows_read(counters: Mapping[str, ValueRef], rows_by_query: dict[str, list[ResultRow]]) -> dict[str, int]:
    results = Results(rows_by_query)
    return {name: results.value(ref) or 0 for name, ref in counters.items()}
