"""Task metrics' ``rowsCounter``: the rows of every source a run reads, counted in the same fused
aggregate queries as the rules' own counts (a source a rule already counts costs nothing more)."""

from __future__ import annotations

from typing import Mapping

from .collect import Collector, Results, ValueRef
from .plan import Plan, Read, count_all, reads
from .types import Schema


def count_rows_read(sources: Mapping[str, object], schemas: Mapping[str, Schema], collector: Collector,
                    plans: list[Plan]) -> dict[str, ValueRef]:
    """A row count per declared source that ``plans`` read, directly or through their views."""
    read = _sources_read(plans)
    return {name: collector.value(Read(name, schemas[name]), count_all())
            for name in sources if name in read and name in schemas}


def _sources_read(plans: list[Plan]) -> set[str]:
    """Names the plans' queries read, and, for each view among them, what the view reads."""
    views = {view.name: view.relation for plan in plans for view in plan.views}
    pending = [name for plan in plans for query in plan.queries for name in reads(query.relation)]
    pending += [name for plan in plans for export in plan.exports for name in reads(export.relation)]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            if name in views:
                pending.extend(reads(views[name]))
    return seen


def rows_read(counters: Mapping[str, ValueRef], rows_by_query: dict[str, list[dict]]) -> dict[str, int]:
    results = Results(rows_by_query)
    return {name: results.value(ref) or 0 for name, ref in counters.items()}
