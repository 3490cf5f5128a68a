"""The executor handles every IR node and catalogue entry, and refuses unknown ones clearly."""

from __future__ import annotations

import pytest

from gryph.compiler.errors import UnsupportedError
from gryph.compiler.plan import RELATION_TYPES, SCALAR_TYPES, AggFn, Fn, WindowFn

relations = pytest.importorskip("gryph.client.spark.compile.relations")  # pyspark is a declared test dependency
scalars = pytest.importorskip("gryph.client.spark.compile.scalars")


@pytest.mark.parametrize("node_type", RELATION_TYPES, ids=lambda t: t.__name__)
def test_every_relation_has_a_compiler(node_type):
    assert relations.compile_relation.dispatch(node_type) is not relations.compile_relation.dispatch(object)


@pytest.mark.parametrize("node_type", SCALAR_TYPES, ids=lambda t: t.__name__)
def test_every_scalar_has_a_compiler(node_type):
    assert scalars.compile_scalar.dispatch(node_type) is not scalars.compile_scalar.dispatch(object)


def test_every_catalogue_entry_is_mapped():
    assert set(scalars.CALLS) == set(Fn)
    # COUNT_ALL has its own form; PERCENTILE_DISC is compiled with its Aggregate relation
    assert set(scalars.AGGREGATES) | {AggFn.COUNT_ALL, AggFn.PERCENTILE_DISC} == set(AggFn)
    assert set(scalars.WINDOWS) == set(WindowFn)


def test_unknown_nodes_raise_unsupported():
    with pytest.raises(UnsupportedError, match=r"is not supported on spark$"):
        scalars.compile_scalar(object())
    with pytest.raises(UnsupportedError, match=r"is not supported on spark$"):
        relations.compile_relation(object(), None)
