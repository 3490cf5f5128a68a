"""A run's queries as one DuckDB statement: their rows come back in one union, tagged by query.

DuckDB then runs the queries' scans and aggregations side by side, so that one query's
single-threaded end (a percentile's selection, the last merge of a hash table) overlaps
another's scan: the benchmark's peer checks took 1.05-1.09 s as one statement at 10M rows
against 1.17-1.22 s one after another, with the same CPU time. Each branch packs its rows as
a struct, in a column of its own (UNION ALL BY NAME leaves the other branches' columns NULL).
A union keeps no order: queries whose rows come in one (a sort, users' SQL) run alone.
"""

from __future__ import annotations

from dataclasses import replace

from gryph.compiler.engine import Rows
from gryph.compiler.plan import Filter, Limit, Project, Query, Read, Relation, Sort, Sql, free_prefix, reads
from gryph.compiler.plan.result_values import normalize
from gryph.compiler.plan.sharing import replace_shared, shared_work

from ..sql.quoting import ident
from ..sql.relations import Aliases, query_sql, relation_sql
from .located_rows import Locate, LocatedWork, fetched_samples, locate_shared

PART = "__part"


def in_order(rel: Relation) -> bool:
    """Whether the rows of ``rel`` come in an order that a union would not keep."""
    while isinstance(rel, Limit | Project | Filter):
        rel = rel.input
    return isinstance(rel, Sort | Sql)


def union_sql(queries: list[Query], locate: Locate) -> str:
    """One statement whose rows are ``(__part, __s0, __s1, ...)``: query i's rows in ``__s{i}``.

    A join or grouping that several queries hold (a count and its record sample) is computed
    once, as a materialised CTE that they read. Where its rows are a source's rows that
    ``locate`` gives a location, it carries the locations, and a sample of it fetches its
    whole rows by location (located_rows.py).
    """
    shared = shared_work([q.relation for q in queries])
    prefix = free_prefix("__gryph_shared", [name for q in queries for name in reads(q.relation)])
    names = {rel: Read(f"{prefix}{i}", rel.schema) for i, rel in enumerate(shared)}
    located: dict[str, LocatedWork] = {}
    ctes = []
    for rel in shared:
        work = locate_shared(rel, locate)
        if work is not None:
            located[names[rel].source] = work
        computed = rel if work is None else work.computed
        ctes.append(f"{ident(names[rel].source)} AS MATERIALIZED ({relation_sql(computed, Aliases())})")
    branches = []
    for i, query in enumerate(queries):
        # the subquery's alias names its whole row (a struct); no column may bear that name
        row = ident(free_prefix("__row", query.relation.schema))
        relation = replace_shared(query.relation, names)
        if located:
            relation = fetched_samples(relation, located)
        sql = query_sql(replace(query, relation=relation))
        branches.append(f"SELECT {i} AS {ident(PART)}, {row} AS {ident(f'__s{i}')} FROM ({sql}) AS {row}")
    union = " UNION ALL BY NAME ".join(branches)
    return f"WITH {', '.join(ctes)} {union}" if ctes else union


def split_rows(names: list[str], rows: list[tuple], parts: int) -> list[Rows]:
    """Each query's rows from the union's, in the order they came."""
    part_at, column_at = names.index(PART), {name: i for i, name in enumerate(names)}
    slots = [column_at[f"__s{i}"] for i in range(parts)]
    out: list[Rows] = [[] for _ in range(parts)]
    for row in rows:
        i = row[part_at]
        out[i].append({name: normalize(value) for name, value in row[slots[i]].items()})
    return out
