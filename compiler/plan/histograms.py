"""Histograms of key counts: how many values of some keys occur once, twice, ... in a relation.

Uniqueness and distinctness read everything they report from one such histogram. The compiler
builds them with ``key_histogram``; an engine that computes several over one input in a single
pass (Spark, with GROUPING SETS) recognises them with ``histogram_parts``, and one that takes
record samples in a histogram's aggregate with ``is_key_histogram``.
"""

from __future__ import annotations

from typing import TypeGuard

from .data_types import INTEGER
from .relations import Aggregate, Named, Relation
from .scalars import Field, count_all

COUNT = "__count"
VALUES = "__values"


_COUNTED = (Named(count_all(), COUNT),)
_HISTOGRAM_KEYS = (Named(Field(COUNT, INTEGER), COUNT),)
_HISTOGRAM_MEASURES = (Named(count_all(), VALUES),)


def grouped_counts(input: Relation, keys: tuple[Named, ...]) -> Aggregate:
    """Each value of ``keys`` with how many rows hold it (``__count``)."""
    return Aggregate(input, keys, _COUNTED)


def key_histogram(counted: Relation) -> Aggregate:
    """Rows ``{__count, __values}``: how many values occur ``__count`` times."""
    return Aggregate(counted, _HISTOGRAM_KEYS, _HISTOGRAM_MEASURES)


def is_key_histogram(rel: Relation) -> TypeGuard[Aggregate]:
    """Whether ``rel`` is a ``key_histogram`` (of any relation with a ``__count`` column)."""
    return isinstance(rel, Aggregate) and (rel.keys, rel.measures) == (_HISTOGRAM_KEYS, _HISTOGRAM_MEASURES)


def histogram_parts(rel: Relation) -> tuple[Relation, tuple[Named, ...]] | None:
    """The input and keys of a histogram over ``grouped_counts``; None for any other relation."""
    if not is_key_histogram(rel):
        return None
    counted = rel.input
    if not isinstance(counted, Aggregate) or counted.measures != _COUNTED:
        return None
    return counted.input, counted.keys
