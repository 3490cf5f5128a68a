"""Work that several queries of a plan share: joins and groupings worth computing only once.

A record sample reads the relation its rule's count reads (the rows an accuracy rule misses,
the groups of a duplicate check). The compiler runs such a sample with the other queries
rather than after them, and an engine computes what they share once (DuckDB as a
materialised CTE; Spark reuses the shuffles of equal sub-plans within its one action).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import islice

from .relations import Aggregate, Distinct, Join, Relation, Window, walk_relations


def _costly(rel: Relation) -> bool:
    """Whether computing ``rel`` itself needs a hash table or a shuffle over its input."""
    return isinstance(rel, Join | Distinct | Window) or (isinstance(rel, Aggregate) and bool(rel.keys))


def costly_parts(rel: Relation) -> dict[Relation, None]:
    """The sub-relations of ``rel`` (itself included) that hold a join or a grouping, innermost
    first (a dict: a set in a fixed order)."""
    out: dict[Relation, None] = {}
    _collect_costly(rel, out)
    return out


def _collect_costly(rel: Relation, out: dict[Relation, None]) -> bool:
    inside = [_collect_costly(child, out) for child in rel.inputs()]
    if _costly(rel) or any(inside):
        out[rel] = None
        return True
    return False


def shared_work(relations: Iterable[Relation]) -> list[Relation]:
    """The outermost costly sub-relations that two or more of ``relations`` hold.

    One inside another is left out: it is computed once as part of the outer one.
    """
    counts = Counter(part for rel in relations for part in costly_parts(rel))
    shared = [part for part, count in counts.items() if count > 1]
    inner = {part for outer in shared for part in islice(walk_relations(outer), 1, None)}
    return [part for part in shared if part not in inner]


def replace_shared(rel: Relation, names: Mapping[Relation, Relation]) -> Relation:
    """``rel`` with every sub-relation that ``names`` holds replaced by what it maps to."""
    found = names.get(rel)
    if found is not None:
        return found
    return rel.rebuilt(Relation, lambda child: replace_shared(child, names))
