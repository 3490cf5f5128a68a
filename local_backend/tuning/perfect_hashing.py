"""Grouping dense integer keys with DuckDB's perfect hash table, within a memory budget.

DuckDB groups integer keys through a table with one slot per value of their range (known from
the data's statistics: parquet footers, DuckDB tables) when the range needs at most
``perfect_ht_threshold`` bits. Every thread fills a table of its own, so DuckDB's default
allows 12 bits (4,096 slots). Distinctness and uniqueness group by ids, whose range is about
the row count: grouping 10 million ids took 0.38 s and 512 MiB at peak with the perfect table,
0.62 s and 705 MiB with the hash table. A query here may use as many bits as keep every
thread's slots, together, within ``SLOTS_PER_ROW`` times the rows it reads: whatever the keys,
the perfect table then costs at most a constant factor of the scan, in time and memory. The
rows of each source come from DuckDB's planner, asked once per run and only for sources whose
statistics could give a key a range at all.

DuckDB allocates perfect tables outside its buffer manager: they neither count against
``memory_limit`` nor spill. At 100 million rows under an 8 GB limit they took the process to
10.4 GB. So a statement's perfect tables, sized as large as its keys could make them, may take
at most ``MEMORY_SHARE`` of the limit. When gryph set the limit (``--memory-limit``), the limit
left to everything else is lowered by that for the statement and then set back exactly as given,
so the user's limit holds for the whole. (DuckDB prints a limit rounded, so one gryph did not set
could not be set back exactly: it stays, and perfect tables may take up to the share beside it.)
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator, Mapping

import duckdb

from gryph.compiler.plan import Aggregate, Distinct, Relation, Sql, View, reads, walk_relations
from gryph.compiler.plan.data_types import Kind
from gryph.compiler.sources.source_specs import SourceSpec

from ..sql.quoting import ident, string
from .settings import current_setting, setting

THRESHOLD = "perfect_ht_threshold"
SLOTS_PER_ROW = 4
# a cap whatever the rows: 2^30 slots are already gigabytes per thread
MAX_BITS = 30
# the most of DuckDB's memory_limit a statement's perfect tables may take
MEMORY_SHARE = 0.5
# a slot of a perfect table: its "occupied" flag, and a row of aggregate states of at most
# 16 bytes each (a count takes 8, a sum or average 16); a table without aggregates, one state's room
SLOT_FLAG_BYTES, STATE_BYTES = 1, 16
_SIZE = re.compile(r"([0-9.]+)\s*(bytes|KiB|MiB|GiB|TiB|PiB)")
_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}


def budget_bits(rows: int, threads: int) -> int:
    """The most key bits whose slots, on every thread, stay within ``SLOTS_PER_ROW`` per row."""
    slots_per_thread = SLOTS_PER_ROW * rows // max(threads, 1)
    return min(MAX_BITS, max(slots_per_thread.bit_length() - 1, 0))


def memory_bits(slot_bytes: int, tables: int, limit_bytes: int) -> int:
    """The most key bits whose perfect tables (``tables`` of them, ``slot_bytes`` a slot, > 0)
    stay within ``MEMORY_SHARE`` of DuckDB's memory limit."""
    slots = int(limit_bytes * MEMORY_SHARE) // (slot_bytes * tables)
    return min(MAX_BITS, max(slots.bit_length() - 1, 0))


def perfect_slot_bytes(rel: Relation) -> int:
    """Bytes a slot of every perfect table computing ``rel`` may take, summed over its groupings.

    Only groupings by integer keys can use one (DuckDB's rule); users' SQL is not known, so it
    counts as one grouping with one state.
    """
    total = 0
    for node in walk_relations(rel):
        if isinstance(node, Sql):
            total += SLOT_FLAG_BYTES + STATE_BYTES
        elif isinstance(node, Aggregate) and node.keys and all(_integral(k.expr.dtype.kind) for k in node.keys):
            total += SLOT_FLAG_BYTES + STATE_BYTES * max(len(node.measures), 1)
        elif isinstance(node, Distinct) and all(_integral(c.dtype.kind) for c in node.schema.columns):
            total += SLOT_FLAG_BYTES + STATE_BYTES
    return total


def _integral(kind: Kind) -> bool:
    return kind is Kind.INTEGER


def size_bytes(text: str) -> int | None:
    """DuckDB's printed size (``18.8 GiB``) in bytes; None when it prints no size."""
    match = _SIZE.fullmatch(text.strip())
    return int(float(match.group(1)) * _UNITS[match.group(2)]) if match else None


def groups(rel: Relation) -> bool:
    """Whether computing ``rel`` may group rows (users' SQL may)."""
    return any(
        isinstance(node, Distinct | Sql) or (isinstance(node, Aggregate) and node.keys) for node in walk_relations(rel)
    )


def rows_read(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    """The rows DuckDB's planner expects a query's scans to read (exact for parquet and tables)."""
    plan = json.loads(con.execute(f"EXPLAIN (FORMAT json) {sql}").fetchall()[0][1])
    total, stack = 0, list(plan)
    while stack:
        node = stack.pop()
        if node.get("children"):
            stack.extend(node["children"])
        else:
            total += int(node.get("extra_info", {}).get("Estimated Cardinality", 0) or 0)
    return total


class GroupingBudget:
    """How far one run's statements may raise DuckDB's perfect-hash threshold."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        sources: Mapping[str, SourceSpec],
        views: tuple[View, ...],
        set_limit: str | None = None,
    ) -> None:
        """``set_limit``: the memory limit gryph set on the connection, as it was given."""
        self._con, self._sources, self._set_limit = con, sources, set_limit
        self._views = {view.name: view.relation for view in views}
        self._rows: dict[str, int] = {}

    def rows(self, rel: Relation) -> int:
        """The rows ``rel`` reads from sources with statistics (views read through).

        Other sources give no key a range, and names that are neither sources nor views
        (tables in users' SQL) are not known here: they count nothing, so they raise nothing.
        """
        total = 0
        for name in reads(rel):
            if name in self._views:
                total += self.rows(self._views[name])
            elif name in self._sources and _has_statistics(self._sources[name]):
                if name not in self._rows:
                    self._rows[name] = rows_read(self._con, f"SELECT * FROM {ident(name)}")
                total += self._rows[name]
        return total

    @contextlib.contextmanager
    def applied(self, relations: list[Relation]) -> Iterator[None]:
        """For the block (one statement computing ``relations``), DuckDB may group with perfect
        tables up to the largest budget of the relations that group, and as far as memory allows
        (with the memory limit lowered for the block by what the tables may take). A higher
        threshold the user set stays; both settings are restored after.
        """
        grouping = [rel for rel in relations if groups(rel)]
        raised = self._raised(grouping) if grouping else None
        if raised is None:
            yield
            return
        bits, rest = raised
        with setting(self._con, THRESHOLD, str(bits)), self._limit_lowered(rest):
            yield

    @contextlib.contextmanager
    def _limit_lowered(self, rest: int | None) -> Iterator[None]:
        """DuckDB's memory limit at ``rest`` bytes for the block, then as gryph set it."""
        if rest is None or self._set_limit is None:  # ``rest`` is only given where gryph set a limit
            yield
            return
        self._con.execute(f"SET memory_limit = '{rest}B'")
        try:
            yield
        finally:
            self._con.execute(f"SET memory_limit = {string(self._set_limit)}")

    def _raised(self, grouping: list[Relation]) -> tuple[int, int | None] | None:
        """The threshold for relations that group, if above the current one, and the memory
        limit left beside their tables when gryph set the limit (else None)."""
        rows = max(self.rows(rel) for rel in grouping)
        slot_bytes = sum(perfect_slot_bytes(rel) for rel in self._with_views(grouping))
        if not rows or not slot_bytes:
            return None
        threads = int(current_setting(self._con, "threads"))
        # every thread's table and the one they are combined into
        tables = threads + 1
        bits = budget_bits(rows, threads)
        limit = size_bytes(current_setting(self._con, "memory_limit"))
        if limit is not None:
            bits = min(bits, memory_bits(slot_bytes, tables, limit))
        if bits <= int(current_setting(self._con, THRESHOLD)):
            return None
        if limit is None or self._set_limit is None:
            return bits, None
        return bits, limit - slot_bytes * tables * 2**bits

    def _with_views(self, relations: list[Relation]) -> list[Relation]:
        """The relations and the views they read, each once (computed inside the same statement)."""
        out, seen, stack = list(relations), set(), list(relations)
        while stack:
            for name in reads(stack.pop()):
                if name in self._views and name not in seen:
                    seen.add(name)
                    out.append(self._views[name])
                    stack.append(self._views[name])
        return out


def _has_statistics(spec: SourceSpec) -> bool:
    """Whether the source's files or table carry the min/max statistics a perfect table is sized
    from: parquet's footers, a DuckDB table's."""
    return spec.kind.footers or spec.kind.family == "catalog"
